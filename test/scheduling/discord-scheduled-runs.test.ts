import { afterEach, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { makeDiscordAdmin } from '../support/discord-admin.ts';
import { buttonLabelsOf } from '../support/discord-slash-command.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Scheduled runs delivered on Discord end to end: the commands typed through the fake Discord to
 * the real discord.js client, the runs started by the timer wheel on a clock the test moves, and
 * what they post read back from the fake (issue 28).
 */
let under: DiscordUnderTest;
afterEach(() => under?.close());

// Monday 2 June 2025, 08:00 in Berlin (SCHEDULE_TIMEZONE below).
const startMs = Date.parse('2025-06-02T06:00:00Z');

const start = () =>
  startDiscordUnderTest({ SCHEDULE_TIMEZONE: 'Europe/Berlin' }, { scheduleClockStartMs: startMs });

function schedulingOf(bot: DiscordUnderTest) {
  if (bot.scheduling === undefined) throw new Error('the bot runs no manual scheduling');
  return bot.scheduling;
}

describe('scheduled runs on Discord', () => {
  it('posts a channel schedule’s run as an ordinary reply: streamed, with its buttons, kept as the channel’s history', async () => {
    under = await start();
    const scheduling = schedulingOf(under);
    const admin = makeDiscordAdmin(under);
    const channelId = under.generalChannelId;
    const conversationKey = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: channelId,
    });
    under.discord.sendSlashCommand({
      name: 'schedule',
      channelId,
      user: admin.id,
      options: { text: 'every weekday 09:00 what changed today?' },
    });
    const confirmation = await under.discord.waitFor(() =>
      under.botMessages(channelId).find((message) => message.content.includes('Scheduled')),
    );
    expect(confirmation.content).toMatch(/first run Mon 2 Jun, 09:00 \(Europe\/Berlin\)/);
    expect(buttonLabelsOf(confirmation)).toEqual(['Pause', 'Delete']);

    const answer = 'Today the release moved to Friday, and the docs were merged after review by the team.';
    under.gateway.enqueue({ text: answer, chunkSize: 8, delayBetweenChunksMs: 100 });
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T06:59:59Z'));
    expect(under.gateway.requests).toEqual([]);
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    const reply = await under.discord.waitFor(
      () =>
        under
          .botMessages(channelId)
          .find((message) => message.content === answer && buttonLabelsOf(message).includes('Regenerate')),
      { timeoutMs: 15_000 },
    );
    // Streamed: posted on its first words, edited as more came.
    expect(reply.revisions.length).toBeGreaterThan(2);
    expect(reply.revisions[0]?.content.length).toBeLessThan(answer.length);
    expect(buttonLabelsOf(reply)).toEqual(['Regenerate']);
    // The announcement names the schedule and its owner, above the reply.
    const announcement = under
      .botMessages(channelId)
      .find((message) => message.content.startsWith('🕘 what'));
    expect(announcement?.content).toMatch(
      /🕘 what changed today\? — scheduled by grace \(every weekday 09:00\)/,
    );
    // Posted in the channel through REST, not as an answer to anyone's interaction.
    expect(under.discord.message(reply.id)?.type).toBe(0);
    // The channel's history holds the run, so a later mention there follows on from it.
    const turns = await under.services.history.load(conversationKey);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(turns.map((turn) => turn.text)).toEqual(['what changed today?', answer]);
    expect(turns[0]?.authorName).toBe('grace');

    // The run is the owner's spend, as /usage shows it (the ledger keeps the real day).
    const spentToday = async () =>
      (await under.services.usage.report({ userId: admin.id, conversationKey, at: new Date() })).user.today;
    await vi.waitFor(async () => expect((await spentToday()).requests).toBe(1), { timeout: 5_000 });
    expect((await spentToday()).completionTokens).toBeGreaterThan(0);

    under.gateway.enqueue({ text: 'On Friday.' });
    under.discord.sendUserMessage({ channelId, content: 'when is the release?', mentionsBot: true });
    await under.discord.waitFor(() =>
      under.botMessages(channelId).find((message) => message.content === 'On Friday.'),
    );
    const followUp = under.gateway.requests.at(-1)?.body as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(followUp.messages)).toContain('the release moved to Friday');

    const [record] = await scheduling.scheduler.listInPlace(conversationKey);
    expect(record?.runCount).toBe(1);
    expect(new Date(record?.nextRunAtMs ?? 0).toISOString()).toBe('2025-06-03T07:00:00.000Z');
  }, 40_000);

  it('posts a /remind in the person’s DM, opened with Create DM, and nowhere else', async () => {
    under = await start();
    const scheduling = schedulingOf(under);
    const person = under.discord.createUser({ username: 'bob' });
    const channelId = under.generalChannelId;
    const interactionId = under.discord.sendSlashCommand({
      name: 'remind',
      channelId,
      user: person.id,
      options: { text: 'in 2h stretch your legs' },
    });
    const confirmation = await under.discord.waitFor(() =>
      under.botMessages(channelId).find((message) => message.content.includes('I will remind you')),
    );
    expect(confirmation.content).toMatch(/“stretch your legs” on Mon 2 Jun, 10:00 \(Europe\/Berlin\)/);
    // Only bob sees that he set a reminder (an ephemeral answer: flag 64).
    expect(confirmation.flags & 64).toBe(64);
    expect(under.discord.interaction(interactionId)).toBeDefined();

    const dmId = under.discord.directMessageChannel(person.id);
    const before = under.discord.requests.length;
    await scheduling.clock.advanceBy(2 * 60 * 60_000 + 1_000);
    const reminder = await under.discord.waitFor(() =>
      under.botMessages(dmId).find((message) => message.content.includes('Reminder')),
    );
    expect(reminder.content).toBe('⏰ Reminder: stretch your legs');
    // The request log is written as each response goes out, just after the message exists.
    const calls = await under.discord.waitFor(() => {
      const made = under.discord.requests.slice(before).map((call) => `${call.method} ${call.path}`);
      return made.includes(`POST /channels/${dmId}/messages`) ? made : undefined;
    });
    expect(calls).toContain('POST /users/@me/channels');
    // Nothing in the channel where it was set, no model call, and the reminder is done with.
    expect(under.botMessages(channelId).filter((message) => message.content.includes('stretch'))).toEqual([
      confirmation,
    ]);
    expect(under.gateway.requests).toEqual([]);
    const madeIn = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: channelId,
    });
    await vi.waitFor(async () =>
      expect(await scheduling.scheduler.listOfOwner(madeIn, person.id)).toEqual([]),
    );
  }, 40_000);
});
