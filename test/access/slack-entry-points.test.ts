import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { Tool } from '../../src/tools/tool.ts';
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
import { type SlackEntryPoint, slackEntryPoints, type ToolRule, toolRules } from './entry-points.ts';

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
      'slash-command:forget-another': /Only a server admin can do that/,
      'slash-command:export-another': /Only a server admin can do that/,
      'slash-command:audit': /Only a server admin can do that/,
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
    case 'slash-command:forget-another':
      await bot.deliverCommand(
        slashCommand({ command: '/forget', user: mallory, channel, text: `--user <@${admin}>` }),
      );
      return;
    case 'slash-command:export-another':
      await bot.deliverCommand(
        slashCommand({ command: '/export', user: mallory, channel, text: `--user <@${admin}>` }),
      );
      return;
    case 'slash-command:audit':
      await bot.deliverCommand(slashCommand({ command: '/audit', user: mallory, channel, text: '' }));
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

/** A tool of the matrix's own that records each run: the proof it never ran past a rule. */
function probeTool(runs: unknown[], overrides: Partial<Tool> = {}): Tool {
  return {
    name: 'test_probe',
    title: 'Probe',
    description: 'A probe for the access matrix.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { isReadOnly: true, isDestructive: false, isOpenWorld: false },
    source: 'test',
    priceNanos: 0,
    deadlineMs: 5_000,
    maxResultCharacters: 40_000,
    describeCall: () => '⚙ probing',
    async run({ arguments: toolArguments }) {
      runs.push(toolArguments);
      // About ten thousand tokens: the next round's prompt grows by them.
      return { text: 'x'.repeat(40_000) };
    },
    ...overrides,
  };
}

const acting = { isReadOnly: false, isDestructive: true, isOpenWorld: false };

interface ToolRow {
  readonly environment: Record<string, string>;
  readonly tool: (runs: unknown[]) => Tool;
  /** What the gateway is scripted to answer, round by round. */
  readonly script: readonly Parameters<SlackUnderTest['gateway']['enqueue']>[0][];
  /** Denies the acting tool's question when it appears. */
  readonly denies?: boolean;
  /**
   * How the acting tool's question ends, after the reply that asked it has ended without waiting
   * (denied, or its time up): nothing runs, and no further request is made.
   */
  readonly questionEnds?: RegExp;
  /** How the reply ends, and what the gateway and the tool saw by then. */
  readonly expected: RegExp;
  readonly offersTools: readonly boolean[];
  readonly runs: number;
}

const toolRows: Record<ToolRule, ToolRow> = {
  'tool-off-in-channel': {
    environment: { TOOLS: 'none' },
    tool: (runs) => probeTool(runs),
    script: [{ text: 'No tools here.' }],
    expected: /No tools here\./,
    offersTools: [false],
    runs: 0,
  },
  'role-without-the-tool': {
    environment: { TOOL_ROLE_IDS: 'test_probe=S0OTHERS01' },
    tool: (runs) => probeTool(runs),
    script: [{ text: 'Not for you.' }],
    expected: /Not for you\./,
    offersTools: [false],
    runs: 0,
  },
  'budget-for-no-further-round': {
    // Enough for the first round; the second, with the probe's ten thousand tokens, is not sent.
    environment: { BUDGET_USER_DAILY: '0.005' },
    tool: (runs) => probeTool(runs),
    script: [{ toolCalls: [{ name: 'test_probe', arguments: {} }] }, { text: 'Never sent.' }],
    expected: /Not sent: your daily budget has 0\.00\d+ of 0\.005 left/,
    offersTools: [true],
    runs: 1,
  },
  'acting-tool-denied': {
    environment: {},
    tool: (runs) => probeTool(runs, { annotations: acting }),
    script: [{ toolCalls: [{ name: 'test_probe', arguments: {} }] }, { text: 'I did not probe.' }],
    denies: true,
    questionEnds: /🚫 not run: .* denied it/,
    expected: /I did not probe\./,
    offersTools: [true, true],
    runs: 0,
  },
  'acting-tool-unanswered': {
    environment: { TOOL_APPROVAL_TIMEOUT_S: '5' },
    tool: (runs) => probeTool(runs, { annotations: acting }),
    script: [{ toolCalls: [{ name: 'test_probe', arguments: {} }] }, { text: 'Nobody said yes.' }],
    questionEnds: /🚫 not run: nobody approved it within 5 s/,
    expected: /Nobody said yes\./,
    offersTools: [true, true],
    runs: 0,
  },
};

describe.each(toolRules)('Slack tools: %s', (rule) => {
  const row = toolRows[rule];
  let bot: SlackUnderTest;
  afterAll(() => bot.close());

  it('makes no gateway request beyond what the rule allows and never runs the tool past it', async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      environment: { CHAT_MODEL: 'tools-model', ...row.environment },
      prepare: (slack) => {
        slack.addUser({ id: mallory, name: 'mallory' });
        slack.addUserGroup({ id: 'S0OTHERS01', handle: 'others', userIds: [admin] });
      },
    });
    await bot.slack.waitFor(() => bot.slack.calls.find((call) => call.method === 'usergroups.list'));
    const runs: unknown[] = [];
    bot.app.toolbox.replace('test', [row.tool(runs)]);
    for (const behaviour of row.script) bot.gateway.enqueue(behaviour);
    const mention = appMention({ channel, text: 'probe it', user: mallory });
    await bot.deliverEvent(mention);
    const threadTs = String(mention.ts);
    if (row.denies) {
      const question = await bot.slack.waitFor(() =>
        bot.slack.messages(channel, threadTs).find((message) => message.text.includes('wants to')),
      );
      const deny = buttonsOf(question).find((button) => button.text.text === 'Deny');
      await bot.deliverInteraction(
        buttonClick({
          actionId: deny?.action_id ?? '',
          messageTs: question.ts,
          threadTs,
          channel,
          user: mallory,
        }),
      );
    }
    // A streamed answer arrives in pieces: the thread's messages show it whole.
    await bot.slack.waitFor(
      () =>
        [
          ...bot.slack.messages(channel, threadTs).map((message) => message.text),
          ...saidSince(bot, { calls: 0, posts: 0 }),
        ].find((text) => row.expected.test(text)),
      15_000,
    );
    if (row.questionEnds) {
      const ends = row.questionEnds;
      await bot.slack.waitFor(
        () => bot.slack.messages(channel, threadTs).find((message) => ends.test(message.text)),
        15_000,
      );
    }
    await pause(200);
    const bodies = bot.gateway.requests.map((request) => request.body as { tools?: unknown[] });
    expect(bodies.map((body) => body.tools !== undefined)).toEqual(row.offersTools);
    expect(runs).toHaveLength(row.runs);
  }, 30_000);
});
