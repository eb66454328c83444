import { afterEach, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';

/**
 * Scheduled runs delivered on Slack end to end: the commands delivered by the fake Slack to the real
 * Bolt app, the runs started by the timer wheel on a clock the test moves, and what they post read
 * back from the fake's Web API (issue 28).
 */
let bot: SlackUnderTest;
afterEach(() => bot?.close());

// Monday 2 June 2025, 08:00 in Berlin (SCHEDULE_TIMEZONE below).
const startMs = Date.parse('2025-06-02T06:00:00Z');
const adminId = 'U0ADMIN001';
const channel = 'C0DIGEST01';
const teamId = 'T0FAKETEAM';

const start = () =>
  startSlackUnderTest({
    mode: 'http',
    environment: { SCHEDULE_TIMEZONE: 'Europe/Berlin' },
    prepare: (slack) => {
      slack.addUser({ id: adminId, name: 'ada', isAdmin: true });
    },
    scheduleClockStartMs: startMs,
  });

function schedulingOf(under: SlackUnderTest) {
  if (under.scheduling === undefined) throw new Error('the bot runs no manual scheduling');
  return under.scheduling;
}

/** The labels of a message's buttons (its `actions` block), in order. */
const buttonLabels = (blocks: unknown) =>
  [
    ...JSON.stringify(blocks ?? []).matchAll(
      /"type":"button","action_id":"[^"]*","text":\{"type":"plain_text","text":"([^"]+)"/g,
    ),
  ].map((match) => match[1]);

describe('scheduled runs on Slack', () => {
  it('posts a channel schedule’s run as an ordinary reply: streamed with chat.update, with its buttons, kept as the channel’s history', async () => {
    bot = await start();
    const scheduling = schedulingOf(bot);
    await bot.deliverCommand(
      slashCommand({
        command: '/schedule',
        text: 'every weekday 09:00 what changed today?',
        user: adminId,
        channel,
      }),
    );
    await vi.waitFor(async () =>
      expect(
        await scheduling.scheduler.listInPlace(
          conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
        ),
      ).toHaveLength(1),
    );

    const answer = 'Today the release moved to Friday, and the docs were merged after review by the team.';
    bot.gateway.enqueue({ text: answer, chunkSize: 8, delayBetweenChunksMs: 250 });
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T06:59:59Z'));
    expect(bot.gateway.requests).toEqual([]);
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    const reply = await bot.slack.waitFor(
      () =>
        bot.slack
          .messages(channel)
          .find((message) => message.text === answer && buttonLabels(message.blocks).includes('Regenerate')),
      15_000,
    );
    // Streamed: posted on its first words, then rewritten by chat.update as more came.
    expect(reply.editCount).toBeGreaterThan(0);
    expect(
      bot.slack.callsTo('chat.update').filter((call) => call.arguments.ts === reply.ts).length,
    ).toBeGreaterThan(1);
    expect(
      String(
        bot.slack.callsTo('chat.postMessage').find((call) => call.result.ts === reply.ts)?.arguments.text ??
          '',
      ).length,
    ).toBeLessThan(answer.length);
    expect(buttonLabels(reply.blocks)).toContain('Regenerate');
    const announcement = bot.slack.messages(channel).find((message) => message.text.startsWith('🕘 what'));
    expect(announcement?.text).toMatch(/scheduled by ada \(every weekday 09:00\)/);
    // The channel's history holds the run.
    const turns = await bot.services.history.load(
      conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
    );
    expect(turns.map((turn) => [turn.role, turn.text])).toEqual([
      ['user', 'what changed today?'],
      ['assistant', answer],
    ]);
  }, 40_000);

  it('posts a /remind in the person’s DM, opened with conversations.open', async () => {
    bot = await start();
    const scheduling = schedulingOf(bot);
    const personId = 'U0BOB00001';
    await bot.deliverCommand(
      slashCommand({ command: '/remind', text: 'in 2h stretch your legs', user: personId, channel }),
    );
    await bot.slack.waitFor(() =>
      [...bot.slack.ephemeralMessages, ...bot.slack.responseUrlPosts].find((posted) =>
        JSON.stringify(posted).includes('I will remind you'),
      ),
    );
    await scheduling.clock.advanceBy(2 * 60 * 60_000 + 1_000);
    const opened = await bot.slack.waitFor(() => bot.slack.callsTo('conversations.open')[0]);
    expect(opened.arguments.users).toBe(personId);
    const dm = String((opened.result as { channel?: { id?: string } }).channel?.id);
    const reminder = await bot.slack.waitFor(() =>
      bot.slack.messages(dm).find((message) => message.text.includes('Reminder')),
    );
    expect(reminder.text).toBe('⏰ Reminder: stretch your legs');
    expect(bot.slack.messages(channel).filter((message) => message.botId !== undefined)).toEqual([]);
    expect(bot.gateway.requests).toEqual([]);
  }, 40_000);

  it('gives a scheduled /summarize the channel’s recent messages, as the slash command reads them', async () => {
    bot = await start();
    const scheduling = schedulingOf(bot);
    for (const [user, text] of [
      ['U0ADA00001', 'Shall we ship on Friday?'],
      ['U0BOB00001', 'Yes, <@U0ADA00001> writes the notes by Thursday'],
    ] as const) {
      bot.slack.addMessage({ channel, user, text });
    }
    await bot.deliverCommand(
      slashCommand({ command: '/schedule', text: 'every day 9:00 /summarize', user: adminId, channel }),
    );
    const key = conversationKeyOf({ platform: 'slack', workspace: teamId, channel });
    await vi.waitFor(async () => expect(await scheduling.scheduler.listInPlace(key)).toHaveLength(1));
    bot.gateway.enqueue({
      text: JSON.stringify({
        title: 'Launch planning',
        tldr: 'We ship on Friday.',
        keyPoints: ['Ada writes the notes'],
        decisions: ['Ship on Friday'],
        actionItems: [],
        openQuestions: [],
      }),
    });
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await bot.slack.waitFor(() =>
      bot.slack.messages(channel).find((message) => message.text.includes('We ship on Friday')),
    );
    expect(bot.slack.callsTo('conversations.history').length).toBeGreaterThan(0);
    const prompt = JSON.stringify(bot.gateway.requests[0]?.body);
    expect(prompt).toContain('Shall we ship on Friday?');
    expect(prompt).toContain('user-u0bob00001: Yes, @user-u0ada00001 writes the notes by Thursday');
    await vi.waitFor(async () =>
      expect((await scheduling.scheduler.listInPlace(key))[0]?.lastRun?.status).toBe('ran'),
    );
  }, 40_000);
});
