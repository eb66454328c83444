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

  it('downloads a person’s own data and forgets them, once confirmed, as /export and /forget me do', async () => {
    const conversationKey = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    const member = await signIn('data-member', false);
    const kept = await under.services.memory.remember({
      actor: member.actor,
      conversationKey,
      scope: 'person',
      text: 'likes green tea',
      now: new Date(),
    });
    if (!kept.isKept) throw new Error('not kept');
    // Where a person wrote is how their data is found (the people index): they say something first.
    const before = under.botMessages(under.generalChannelId).length;
    under.discord.sendUserMessage({
      channelId: under.generalChannelId,
      author: member.person.id,
      content: 'a question about green tea',
      mentionsBot: true,
    });
    await under.discord.waitFor(() => under.botMessages(under.generalChannelId).slice(before)[0]);
    const myPath = `/places/discord/${under.discord.guildId}/me`;
    const exported = await member.browser.once('POST', `${myPath}/export`, { csrf: member.csrf });
    expect(exported.headers.get('content-disposition')).toContain('attachment');
    expect(exported.body).toContain('likes green tea');
    expect(exported.body).toContain('a question about green tea');

    const unconfirmed = await member.browser.post(`${myPath}/forget`, { csrf: member.csrf });
    expect(unconfirmed.status).toBe(400);
    expect(
      (await under.services.memory.notesOf({ actor: member.actor, conversationKey, scope: 'person' })).length,
    ).toBe(1);
    const forgotten = await member.browser.post(`${myPath}/forget`, { csrf: member.csrf, confirm: 'yes' });
    expect(forgotten.body).toContain('Done: parley no longer keeps anything about you');
    expect(
      await under.services.memory.notesOf({ actor: member.actor, conversationKey, scope: 'person' }),
    ).toEqual([]);
    const trail = await under.app.audit.read({
      platform: 'discord',
      workspace: under.discord.guildId,
      personId: member.person.id,
      limit: 10,
    });
    // Newest first: the forgetting, then the download, whose name /forget took off the trail too.
    expect(trail.entries.map((entry) => [entry.kind, entry.actor.name])).toEqual([
      ['forget', 'forgotten person'],
      ['export', 'forgotten person'],
    ]);
  }, 30_000);
});
