import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * A person's own time zone (issue 28): /timezone sets it (an IANA name Intl knows, nothing else),
 * /remind reads that person's times in it, across a daylight-saving change, and /schedules shows it;
 * someone else's reminders keep the server's zone. On Slack the zone in the person's profile
 * (`users.info` `tz`) is the default until they set one; Discord tells none, so the server's applies.
 */
let discord: DiscordUnderTest | undefined;
let slack: SlackUnderTest | undefined;
afterEach(async () => {
  await discord?.close();
  await slack?.close();
  discord = undefined;
  slack = undefined;
});

// Friday 30 October 2026, 14:00 UTC (10:00 in New York, past the day's 9:00): New York leaves daylight saving on Sunday 1 November at 02:00.
const startMs = Date.parse('2026-10-30T14:00:00Z');

describe('a person’s own time zone on Discord', () => {
  it('is set by the person alone, read by their /remind across the DST change, and shown in /schedules', async () => {
    // A SQLite file, whose namespaces the bot's scheduler and the test's manual one share (each
    // memory:// namespace is a Map of its own), so /forget reaches the reminders made here.
    const storeUrl = `sqlite://${join(mkdtempSync(join(tmpdir(), 'parley-zones-')), 'bot.sqlite')}`;
    const under = await startDiscordUnderTest(
      { SCHEDULE_TIMEZONE: 'Europe/Berlin', STORE_URL: storeUrl },
      { scheduleClockStartMs: startMs },
    );
    discord = under;
    const scheduling = under.scheduling;
    if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
    const ada = under.discord.createUser({ username: 'ada' });
    const bob = under.discord.createUser({ username: 'bob' });
    const channelId = under.generalChannelId;
    const answerTo = async (user: string, name: string, options: Record<string, string>, wanted: RegExp) => {
      const seen = under.botMessages(channelId).length;
      under.discord.sendSlashCommand({ name, channelId, user, options });
      return under.discord.waitFor(() =>
        under
          .botMessages(channelId)
          .slice(seen)
          .find((message) => wanted.test(message.content)),
      );
    };

    const refused = await answerTo(ada.id, 'timezone', { zone: 'Mars/Olympus_Mons' }, /not a time zone/);
    expect(refused.flags & 64).toBe(64);
    const shownBefore = await answerTo(ada.id, 'timezone', {}, /Your time zone/);
    // Discord tells no zone of its own: the server's applies until she sets one.
    expect(shownBefore.content).toContain('Europe/Berlin (this server’s)');
    const set = await answerTo(ada.id, 'timezone', { zone: 'america/new_york' }, /Set\./);
    expect(set.content).toContain('America/New_York (set by you)');
    expect(set.flags & 64).toBe(64);

    const reminded = await answerTo(
      ada.id,
      'remind',
      { text: 'every day 9:00 stretch' },
      /I will remind you/,
    );
    expect(reminded.content).toMatch(/on Sat 31 Oct, 09:00 \(America\/New_York\)/);
    // Bob set nothing: his reminder is read in the server's zone, not Ada's.
    const bobs = await answerTo(bob.id, 'remind', { text: 'every day 9:00 call Ada' }, /I will remind you/);
    expect(bobs.content).toMatch(/on Sat 31 Oct, 09:00 \(Europe\/Berlin\)/);

    const madeIn = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: channelId,
    });
    const [record] = await scheduling.scheduler.listOfOwner(madeIn, ada.id);
    // 09:00 in New York is 13:00 UTC while daylight saving lasts…
    expect(new Date(record?.nextRunAtMs ?? 0).toISOString()).toBe('2026-10-31T13:00:00.000Z');
    await scheduling.clock.advanceTo(Date.parse('2026-10-31T13:00:01Z'));
    await under.discord.waitFor(() =>
      under
        .botMessages(under.discord.directMessageChannel(ada.id))
        .find((message) => message.content.includes('stretch')),
    );
    // …and 14:00 UTC once it has ended: still 09:00 where she is.
    // The record is advanced once the run is done, just after the DM is posted.
    await vi.waitFor(async () => {
      const [after] = await scheduling.scheduler.listOfOwner(madeIn, ada.id);
      expect(new Date(after?.nextRunAtMs ?? 0).toISOString()).toBe('2026-11-01T14:00:00.000Z');
    });
    const listing = await answerTo(ada.id, 'schedules', {}, /stretch/);
    expect(listing.content).toMatch(/next Sun 1 Nov, 09:00 \(America\/New_York\)/);

    // "default" clears it, and what is kept about her goes with /forget.
    const cleared = await answerTo(ada.id, 'timezone', { zone: 'default' }, /Cleared\./);
    expect(cleared.content).toContain('Europe/Berlin (this server’s)');
    await answerTo(ada.id, 'timezone', { zone: 'Asia/Tokyo' }, /Set\./);
    const exported = await under.app.personData.export({ person: { platform: 'discord', userId: ada.id } });
    expect(exported.data['time-zone']).toMatchObject({ timeZone: 'Asia/Tokyo' });
    expect(JSON.stringify(exported.data.schedules)).toContain('stretch');
    expect(JSON.stringify(exported.data.schedules)).not.toContain('call Ada');
    // /forget me: her zone and her reminder go, so nothing runs in her name; Bob's stays.
    await under.app.personData.forget({ person: { platform: 'discord', userId: ada.id } });
    expect(await scheduling.scheduler.listOfOwner(madeIn, ada.id)).toEqual([]);
    expect(await scheduling.scheduler.listOfOwner(madeIn, bob.id)).toHaveLength(1);
    const forgotten = await under.app.personData.export({ person: { platform: 'discord', userId: ada.id } });
    expect(forgotten.data['time-zone']).toBeUndefined();
  }, 40_000);
});

describe('a person’s own time zone on Slack', () => {
  it('defaults to the zone in their Slack profile (users.info tz) until they set one', async () => {
    const ada = 'U0ADA00003';
    const channel = 'C0ZONES001';
    const under = await startSlackUnderTest({
      mode: 'http',
      environment: { SCHEDULE_TIMEZONE: 'Europe/Berlin' },
      prepare: (workspace) => workspace.addUser({ id: ada, name: 'ada', timeZone: 'Asia/Tokyo' }),
    });
    slack = under;
    const answer = async (command: string, text: string, wanted: RegExp) => {
      const seen = under.slack.responseUrlPosts.length;
      await under.deliverCommand(slashCommand({ command, user: ada, channel, text }));
      return JSON.stringify(
        await under.slack.waitFor(
          () => under.slack.responseUrlPosts.slice(seen).find((post) => wanted.test(JSON.stringify(post))),
          10_000,
        ),
      );
    };
    expect(await answer('/timezone', '', /Your time zone/)).toContain(
      'Asia/Tokyo (from your platform profile)',
    );
    expect(await answer('/remind', 'tomorrow 9:00 call Bob', /I will remind you/)).toMatch(
      /09:00 \(Asia\/Tokyo\)/,
    );
    expect(await answer('/timezone', 'Europe/Lisbon', /Set\./)).toContain('Europe/Lisbon (set by you)');
    expect(await answer('/remind', 'tomorrow 9:00 call Eve', /I will remind you/)).toMatch(
      /09:00 \(Europe\/Lisbon\)/,
    );
  }, 40_000);
});
