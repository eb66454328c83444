import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import {
  appMention,
  buttonClick,
  directMessage,
  messageShortcut,
  slashCommand,
  viewSubmission,
} from '../fakes/slack/index.ts';
import { buttonsOf, finishedReplies } from '../slack/reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type SlackEntryPoint, slackEntryPoints } from './entry-points.ts';

/**
 * Every Slack entry point against every kind of person who must be refused (issue 21), through the
 * real Bolt app and the fake Slack: each cell must end in the refusal's words and make zero gateway
 * requests. Slack ids are fixed strings, so the rules go in the environment.
 */
const mallory = 'U0MALLORY1';
const admin = 'U0ADMIN001';
const channel = 'C0MATRIX01';
const dm = 'D0MALLORY1';
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

interface Scenario {
  readonly name: string;
  readonly environment: Record<string, string>;
  /** Mallory is in the user group S0MEMBERS1. */
  readonly isInGroup?: boolean;
  readonly cells: Partial<Record<SlackEntryPoint, RegExp>>;
}

const cannotUse = /Sorry, you cannot use parley here/;
const spending = (expected: RegExp): Partial<Record<SlackEntryPoint, RegExp>> => ({
  mention: expected,
  'slash-command:chat': expected,
  'slash-command:imagine': expected,
  'slash-command:summarize': expected,
  'message-shortcut:ask': expected,
  'button:regenerate': expected,
  'scheduled-run': expected,
});

const scenarios: Scenario[] = [
  { name: 'a blocked person', environment: { ACCESS_BLOCK_USER_IDS: mallory }, cells: spending(cannotUse) },
  {
    name: 'a person outside the allow list',
    environment: { ACCESS_ALLOW_USER_IDS: admin },
    cells: spending(cannotUse),
  },
  {
    name: 'a user group without the command',
    environment: { ACCESS_COMMAND_ROLE_IDS: 'chat=S0OTHERS01,imagine=S0OTHERS01,summarize=S0OTHERS01' },
    isInGroup: true,
    cells: {
      mention: /\/chat is only for some roles/,
      'slash-command:chat': /\/chat is only for some roles/,
      'slash-command:imagine': /\/imagine is only for some roles/,
      'slash-command:summarize': /\/summarize is only for some roles/,
      'message-shortcut:ask': /\/chat is only for some roles/,
      // A scheduled prompt is answered as /chat.
      'scheduled-run': /\/chat is only for some roles/,
    },
  },
  {
    name: 'a DM while DMs are off',
    environment: { ACCESS_DMS: 'off' },
    cells: { 'direct-message': /does not take direct messages here/ },
  },
  {
    name: 'a person whose daily budget is used up',
    environment: { BUDGET_USER_DAILY: '0' },
    cells: spending(/Not sent: your daily budget has 0 of 0 left/),
  },
  {
    name: 'a user group whose budget is used up',
    environment: { BUDGET_ROLE_DAILY: 'S0MEMBERS1=0' },
    isInGroup: true,
    cells: {
      mention: /Not sent: the daily budget of a role of yours has 0 of 0 left/,
      'slash-command:chat': /Not sent: the daily budget of a role of yours has 0 of 0 left/,
      'scheduled-run': /Not sent: the daily budget of a role of yours has 0 of 0 left/,
    },
  },
  {
    name: 'a person who is no admin, asking for admin things',
    environment: {},
    cells: {
      'slash-command:usage-of-another': /Only server admins can see what others spent/,
      // SCHEDULERS is admins unless the owner says otherwise.
      'slash-command:schedule-in-a-channel':
        /Only server admins \(and the roles the owner allows\) can schedule prompts in a channel/,
    },
  },
];

describe.each(scenarios)('Slack: $name', (scenario) => {
  let bot: SlackUnderTest;
  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      environment: scenario.environment,
      scheduleClockStartMs: Date.now(),
      prepare: (slack) => {
        slack.addUser({ id: admin, name: 'grace', isAdmin: true });
        slack.addUser({ id: mallory, name: 'mallory' });
        slack.addUserGroup({
          id: 'S0MEMBERS1',
          handle: 'members',
          userIds: scenario.isInGroup ? [mallory] : [],
        });
        slack.addUserGroup({ id: 'S0OTHERS01', handle: 'others', userIds: [admin] });
      },
    });
    // The groups are listed once at start, in the background.
    await bot.slack.waitFor(() => bot.slack.calls.find((call) => call.method === 'usergroups.list'));
    await pause(50);
  }, 30_000);
  afterAll(() => bot.close());

  const applicable = slackEntryPoints.filter((entryPoint) => scenario.cells[entryPoint] !== undefined);
  it.each(applicable)('%s is refused with its reason and makes no gateway request', async (entryPoint) => {
    const expected = scenario.cells[entryPoint];
    if (expected === undefined) throw new Error(`no cell for ${entryPoint}`);
    // A button sits under a reply the admin asked for: its requests are not mallory's.
    const button = entryPoint === 'button:regenerate' ? await adminReplyButton(bot) : undefined;
    const requestsBefore = bot.gateway.requests.length;
    const seen = { calls: bot.slack.calls.length, posts: bot.slack.responseUrlPosts.length };
    const scheduleId = await trigger(bot, entryPoint, button, scenario.isInGroup === true);
    await bot.slack.waitFor(() => saidSince(bot, seen).find((text) => expected.test(text)), 10_000);
    await pause(200);
    expect(bot.gateway.requests.length).toBe(requestsBefore);
    // A refused run pauses its schedule: it does not come back to be refused every day.
    if (scheduleId !== undefined) {
      await vi.waitFor(async () => {
        const record = await bot.scheduling?.scheduler.get(scheduleId);
        expect(record?.state).toBe('paused');
        expect(['refused', 'unpaid']).toContain(record?.lastRun?.status);
      });
    }
  });
});

/**
 * Every text parley sent since `seen`: API calls (posts, ephemerals, updates) and answers to
 * response URLs, each list from its own count (a post in the channel must not hide behind earlier
 * private answers).
 */
function saidSince(bot: SlackUnderTest, seen: { calls: number; posts: number }): string[] {
  return [
    ...bot.slack.calls.slice(seen.calls).map((call) => JSON.stringify(call.arguments)),
    ...bot.slack.responseUrlPosts.slice(seen.posts).map((post) => JSON.stringify(post)),
  ];
}

interface PressableButton {
  readonly actionId: string;
  readonly messageTs: string;
  readonly threadTs: string;
}

/** The admin asks; their finished reply's Regenerate button is what mallory will press. */
async function adminReplyButton(bot: SlackUnderTest): Promise<PressableButton> {
  bot.gateway.enqueue({ text: 'An answer for the admin.' });
  const mention = appMention({ channel, text: 'count', user: admin });
  await bot.deliverEvent(mention);
  const threadTs = String(mention.ts);
  const [reply] = await finishedReplies(bot, channel, threadTs);
  const regenerate = buttonsOf(reply).find((button) => button.text.text === 'Regenerate');
  if (reply === undefined || regenerate === undefined) throw new Error('the admin got no Regenerate button');
  return { actionId: regenerate.action_id, messageTs: reply.ts, threadTs };
}

/** Uses the entry point as mallory; a scheduled run's schedule id is returned. */
async function trigger(
  bot: SlackUnderTest,
  entryPoint: SlackEntryPoint,
  button: PressableButton | undefined,
  isInGroup: boolean,
): Promise<string | undefined> {
  switch (entryPoint) {
    case 'button:regenerate':
      if (button === undefined) throw new Error('no button to press');
      await bot.deliverInteraction(buttonClick({ ...button, channel, user: mallory }));
      return;
    case 'mention':
      await bot.deliverEvent(appMention({ channel, text: 'hello?', user: mallory }));
      return;
    case 'direct-message':
      await bot.deliverEvent(directMessage({ channel: dm, text: 'hello?', user: mallory }));
      return;
    case 'slash-command:chat':
      await bot.deliverCommand(slashCommand({ command: '/chat', user: mallory, channel, text: 'hello?' }));
      return;
    case 'slash-command:imagine':
      await bot.deliverCommand(slashCommand({ command: '/imagine', user: mallory, channel, text: 'a fox' }));
      return;
    case 'slash-command:summarize':
      await bot.deliverCommand(slashCommand({ command: '/summarize', user: mallory, channel }));
      return;
    case 'slash-command:schedule-in-a-channel':
      await bot.deliverCommand(
        slashCommand({ command: '/schedule', user: mallory, channel, text: 'every day 9:00 hello?' }),
      );
      return;
    case 'scheduled-run':
      // Mallory's schedule, made before the rule that now refuses her; its run comes due.
      if (bot.scheduling === undefined) throw new Error('the bot runs no manual scheduling');
      return bot.scheduling.runScheduleOf({
        owner: {
          id: mallory,
          name: 'mallory',
          roleIds: isInGroup ? ['S0MEMBERS1'] : [],
          isAdmin: false,
          context: 'server',
        },
        conversationKey: conversationKeyOf({ platform: 'slack', workspace: 'T0FAKETEAM', channel }),
        what: 'hello?',
      });
    case 'slash-command:usage-of-another':
      await bot.deliverCommand(
        slashCommand({ command: '/usage', user: mallory, channel, text: `--user <@${admin}>` }),
      );
      return;
    case 'message-shortcut:ask': {
      const asked = bot.slack.addMessage({ channel, user: admin, text: 'Meet at 10 by the lake.' });
      const before = bot.slack.openedViews.length;
      await bot.deliverInteraction(
        messageShortcut({ callbackId: 'parley_ask', channel, messageTs: asked.ts, user: mallory }),
      );
      const opened = await bot.slack.waitFor(() => bot.slack.openedViews[before]);
      await bot.deliverInteraction(
        viewSubmission({ view: opened.view, user: mallory, values: { question: 'when?' } }),
      );
      return;
    }
  }
}
