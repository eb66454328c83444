import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/access/actor.ts';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * Memory in the console: the server's notes on the Memory page (admins) and each person's own on
 * their page, each with Forget, through the same code as /memory's Forget (the gate for the
 * server's, the audit trail for them); a person's reminders on their page.
 */
let under: DiscordUnderTest;
let webConsole: RunningConsole;
beforeAll(async () => {
  under = await startDiscordUnderTest({}, { scheduleClockStartMs: Date.now() });
  webConsole = await startWebConsoleUnderTest(under);
}, 30_000);
afterAll(async () => {
  await webConsole?.close();
  await under?.close();
});

async function signIn(name: string, isAdmin: boolean) {
  const person = under.discord.createUser({ username: name });
  under.discord.joinGuild(person.id);
  if (isAdmin) {
    const role = under.discord.createRole({ name: `${name}-role`, permissions: ['manage-guild'] });
    under.discord.giveRole(person.id, role);
  }
  under.discord.oauth.approveAs(person.id);
  const browser = createConsoleClient(webConsole.origin);
  const home = await browser.get('/sign-in/discord');
  const actor: Actor = { id: person.id, name, roleIds: [], isAdmin, context: 'server' };
  return { person, actor, browser, csrf: browser.csrfOf(home) };
}

describe('memory in the console', () => {
  it('lets an admin forget the server’s notes and a member their own, and lists a member’s reminders', async () => {
    const conversationKey = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    const admin = await signIn('memory-admin', true);
    const member = await signIn('memory-member', false);
    const kept = await under.services.memory.remember({
      actor: admin.actor,
      conversationKey,
      scope: 'place',
      text: 'Standup is at <b>10:00</b>',
      now: new Date(),
    });
    const own = await under.services.memory.remember({
      actor: member.actor,
      conversationKey,
      scope: 'person',
      text: 'prefers metric units',
      now: new Date(),
    });
    if (!kept.isKept || !own.isKept) throw new Error('notes not kept');
    const reminder = await under.scheduling?.scheduler.create({
      kind: 'reminder',
      conversationKey,
      owner: { id: member.person.id, name: 'memory-member', roleIds: [], isAdmin: false, context: 'server' },
      what: 'water the plants',
      whenText: 'tomorrow 9:00',
      timing: { kind: 'once', atMs: Date.now() + 86_400_000 },
      timeZone: 'UTC',
    });
    if (reminder === undefined || 'problem' in reminder) throw new Error('no reminder');

    const memoryPath = `/places/discord/${under.discord.guildId}/memory`;
    const memoryPage = await admin.browser.get(memoryPath);
    expect(memoryPage.body).toContain('Standup is at &lt;b&gt;10:00&lt;/b&gt;');
    const forgotten = await admin.browser.post(memoryPath, { csrf: admin.csrf, note: kept.note.id });
    expect(forgotten.body).toContain('Forgotten: 1 note.');
    expect(forgotten.body).toContain('No notes.');
    const trail = await under.app.audit.read({
      platform: 'discord',
      workspace: under.discord.guildId,
      kind: 'shared-memory',
      limit: 5,
    });
    expect(trail.entries[0]?.what).toBe(`removed server note ${kept.note.id} with the console`);

    const myPath = `/places/discord/${under.discord.guildId}/me`;
    const myPage = await member.browser.get(myPath);
    expect(myPage.body).toContain('prefers metric units');
    expect(myPage.body).toContain('water the plants');
    // Their own page's Forget forgets only their own notes.
    const mine = await member.browser.post(myPath, { csrf: member.csrf, note: 'all' });
    expect(mine.body).toContain('Forgotten: 1 note.');
    expect(
      await under.services.memory.notesOf({ actor: member.actor, conversationKey, scope: 'person' }),
    ).toEqual([]);
  }, 30_000);
});
