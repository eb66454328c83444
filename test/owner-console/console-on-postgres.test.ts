import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * The console on a postgres:// store, beside services that run no scheduler (schedules off, as on a
 * store several processes share with no Redis to agree through): it still asks Discord who the
 * person is now, through the places the adapter registered on connecting, so sign-in lists the
 * server, its pages open for an admin, and an admin's pages stay shut for a member.
 */
const databaseUrl = process.env.DATABASE_URL;
let under: DiscordUnderTest;
let webConsole: RunningConsole;

describe.skipIf(databaseUrl === undefined)(
  databaseUrl === undefined
    ? 'the owner’s console on a Postgres store (skipped: DATABASE_URL is not set; run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)'
    : 'the owner’s console on a Postgres store',
  () => {
    beforeAll(async () => {
      under = await startDiscordUnderTest({ STORE_URL: databaseUrl ?? '' });
      const { scheduling: _schedulesOff, ...withoutSchedules } = under.services;
      webConsole = await startWebConsoleUnderTest({ ...under, services: withoutSchedules });
    }, 30_000);
    afterAll(async () => {
      await webConsole?.close();
      await under?.close();
    });

    it('with no scheduler, signs an admin in, lists their server and opens its pages', async () => {
      const admin = under.discord.createUser({ username: 'postgres-admin', globalName: 'Postgres Admin' });
      under.discord.joinGuild(admin.id);
      const managers = under.discord.createRole({ name: 'postgres-managers', permissions: ['manage-guild'] });
      under.discord.giveRole(admin.id, managers);
      under.discord.oauth.approveAs(admin.id);
      const browser = createConsoleClient(webConsole.origin);

      const picker = await browser.get('/sign-in/discord');
      expect(picker.status).toBe(200);
      expect(picker.body).toContain('Signed in as Postgres Admin');
      const overviewPath = `/places/discord/${under.discord.guildId}/overview`;
      expect(picker.body).toContain(`href="${overviewPath}"`);
      const overview = await browser.get(overviewPath);
      expect(overview.status).toBe(200);
      const schedules = await browser.get(`/places/discord/${under.discord.guildId}/schedules`);
      expect(schedules.status).toBe(200);
    }, 30_000);

    it('gives a member their own page only, as Discord shows them now', async () => {
      const member = under.discord.createUser({ username: 'postgres-member', globalName: 'Postgres Member' });
      under.discord.joinGuild(member.id);
      under.discord.oauth.approveAs(member.id);
      const browser = createConsoleClient(webConsole.origin);

      const picker = await browser.get('/sign-in/discord');
      const myPath = `/places/discord/${under.discord.guildId}/me`;
      expect(picker.body).toContain(`href="${myPath}"`);
      expect((await browser.get(myPath)).status).toBe(200);
      expect((await browser.get(`/places/discord/${under.discord.guildId}/settings`)).status).toBe(403);
    }, 30_000);
  },
);
