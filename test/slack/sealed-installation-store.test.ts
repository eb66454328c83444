import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Installation, InstallationQuery } from '@slack/oauth';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createSealedInstallationStore,
  type RefreshedToken,
  ReinstallNeededError,
} from '../../adapters/slack/sealed-installation-store.ts';
import { AtRestEncryption, parseEncryptionKey } from '../../src/secrets/encryption-at-rest.ts';
import { learnedSecrets } from '../../src/secrets/known-secret-values.ts';
import { openCoordination } from '../../src/state/coordination.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';

const logger = pino({ level: 'silent' });
const currentKey = parseEncryptionKey({ value: 'd4'.repeat(32), variable: 'SLACK_INSTALLATIONS_KEY' });
const oldKey = parseEncryptionKey({ value: 'e5'.repeat(32), variable: 'SLACK_INSTALLATIONS_KEY_OLD' });

const opened: Array<{ close(): Promise<void> }> = [];
const directories: string[] = [];
afterAll(async () => {
  for (const closable of opened.reverse()) await closable.close();
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

/** One "process" on a store URL: the store, and the record lock its coordination gives. */
function openProcess(storeUrl: string, namespace: string) {
  const store: Store = openStore({ storeUrl, logger });
  const coordination = openCoordination({ store, logger, lockTtlMs: 10_000, namespace });
  opened.push(store, coordination);
  return { keyv: store.namespace(namespace.replaceAll(':', '-')), lock: coordination.recordLock };
}

function installationOf(
  teamId: string,
  token: string,
  extra: Partial<Installation['bot']> = {},
): Installation {
  return {
    team: { id: teamId, name: `Team ${teamId}` },
    enterprise: undefined,
    user: { id: 'U0INSTALL1', token: undefined, scopes: undefined },
    bot: { id: 'B0BOT', userId: 'U0BOT', scopes: ['chat:write'], token, ...extra },
    isEnterpriseInstall: false,
    authVersion: 'v2',
  };
}

const storeUrls: Array<{ name: string; url: () => Promise<string>; isShared: boolean; skip?: boolean }> = [
  { name: 'memory://', url: async () => 'memory://', isShared: false },
  {
    name: 'sqlite://',
    url: async () => {
      const directory = await mkdtemp(join(tmpdir(), 'parley-installations-'));
      directories.push(directory);
      return `sqlite://${join(directory, 'parley.sqlite')}`;
    },
    isShared: false,
  },
  {
    name: 'redis://',
    url: async () => process.env.REDIS_URL ?? '',
    isShared: true,
    skip: !process.env.REDIS_URL,
  },
  {
    name: 'postgres://',
    url: async () => process.env.DATABASE_URL ?? '',
    isShared: false,
    skip: !process.env.DATABASE_URL,
  },
];

for (const backing of storeUrls) {
  describe.skipIf(backing.skip === true)(`Slack installations sealed in the ${backing.name} store`, () => {
    it('keeps each installation sealed, finds an org-wide one for its workspaces, and opens none moved to another record', async () => {
      const namespace = `slack-installations-test-${randomUUID()}`;
      const { keyv, lock } = openProcess(await backing.url(), namespace);
      const store = createSealedInstallationStore({
        keyv,
        encryption: new AtRestEncryption({ current: currentKey }),
        lock,
        refresh: async () => {
          throw new Error('no refresh expected');
        },
        logger,
      });
      const alphaToken = `xoxb-alpha-${randomUUID()}`;
      await store.storeInstallation(installationOf('T0ALPHA', alphaToken));
      await store.storeInstallation({
        ...installationOf('T0IGNORED', `xoxb-org-${randomUUID()}`),
        team: undefined,
        enterprise: { id: 'E0ORG', name: 'Org' },
        isEnterpriseInstall: true,
      } as Installation);
      await store.storeInstallation(installationOf('T0BRAVO', `xoxb-bravo-${randomUUID()}`));

      const alpha = await store.fetchInstallation({
        teamId: 'T0ALPHA',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(alpha.bot?.token).toBe(alphaToken);
      expect(JSON.stringify(await keyv.get('team:T0ALPHA'))).not.toContain(alphaToken);
      expect(learnedSecrets().has(alphaToken)).toBe(true);
      // A workspace of the org with no install of its own uses the org's.
      const inOrg = await store.fetchInstallation({
        teamId: 'T0INORG',
        enterpriseId: 'E0ORG',
        isEnterpriseInstall: false,
      });
      expect(inOrg.enterprise?.id).toBe('E0ORG');
      // Asked by team alone (a scheduled run), once an event of the team came under the org.
      await store.fetchInstallation({
        teamId: 'T0INORG',
        enterpriseId: 'E0ORG',
        isEnterpriseInstall: true,
      } as unknown as InstallationQuery<true>);
      const byTeam = await store.fetchInstallation({
        teamId: 'T0INORG',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(byTeam.enterprise?.id).toBe('E0ORG');
      expect(await store.teamsOfOrg('E0ORG')).toEqual(['T0INORG']);
      await store.deleteInstallation({ teamId: undefined, enterpriseId: 'E0ORG', isEnterpriseInstall: true });
      expect(await store.teamsOfOrg('E0ORG')).toEqual([]);
      await expect(
        store.fetchInstallation({ teamId: 'T0INORG', enterpriseId: undefined, isEnterpriseInstall: false }),
      ).rejects.toThrow('no Slack installation');

      // Bravo's sealed value copied onto Alpha's record does not open there: Alpha must reinstall,
      // Bravo keeps working.
      const bravoRecord = (await keyv.get('team:T0BRAVO')) as { sealed: string };
      await keyv.set('team:T0ALPHA', {
        ...((await keyv.get('team:T0ALPHA')) as object),
        sealed: bravoRecord.sealed,
      });
      await expect(
        store.fetchInstallation({ teamId: 'T0ALPHA', enterpriseId: undefined, isEnterpriseInstall: false }),
      ).rejects.toBeInstanceOf(ReinstallNeededError);
      const bravo = await store.fetchInstallation({
        teamId: 'T0BRAVO',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(bravo.team?.id).toBe('T0BRAVO');
      await keyv.clear();
    });

    it('opens values sealed with the _OLD key and seals them again with the new one', async () => {
      const namespace = `slack-installations-test-${randomUUID()}`;
      const { keyv, lock } = openProcess(await backing.url(), namespace);
      const refresh = async (): Promise<RefreshedToken> => {
        throw new Error('no refresh expected');
      };
      const before = createSealedInstallationStore({
        keyv,
        encryption: new AtRestEncryption({ current: oldKey }),
        lock,
        refresh,
        logger,
      });
      await before.storeInstallation(installationOf('T0ROTATE', 'xoxb-rotate-0123456789'));
      const sealedBefore = ((await keyv.get('team:T0ROTATE')) as { sealed: string }).sealed;
      expect(sealedBefore.split('.')[1]).toBe(oldKey.id);

      const after = createSealedInstallationStore({
        keyv,
        encryption: new AtRestEncryption({ current: currentKey, readOnly: [oldKey] }),
        lock,
        refresh,
        logger,
      });
      const read = await after.fetchInstallation({
        teamId: 'T0ROTATE',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(read.bot?.token).toBe('xoxb-rotate-0123456789');
      const sealedAfter = ((await keyv.get('team:T0ROTATE')) as { sealed: string }).sealed;
      expect(sealedAfter.split('.')[1]).toBe(currentKey.id);

      // Without the old key, a value sealed with it is a workspace to reinstall, not a crash.
      await keyv.set('team:T0ROTATE', {
        ...((await keyv.get('team:T0ROTATE')) as object),
        sealed: sealedBefore,
      });
      const withoutOld = createSealedInstallationStore({
        keyv,
        encryption: new AtRestEncryption({ current: currentKey }),
        lock,
        refresh,
        logger,
      });
      await expect(
        withoutOld.fetchInstallation({
          teamId: 'T0ROTATE',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        }),
      ).rejects.toThrow('install parley in that workspace again');
      await keyv.clear();
    });

    it(`refreshes an expiring token once when ${backing.isShared ? 'two processes' : 'two events'} need it at once, and hides the refresh token from Bolt`, async () => {
      const namespace = `slack-installations-test-${randomUUID()}`;
      const storeUrl = await backing.url();
      // On Redis two processes (two stores, two coordinations); elsewhere two events of one process.
      const processes = backing.isShared
        ? [openProcess(storeUrl, namespace), openProcess(storeUrl, namespace)]
        : [openProcess(storeUrl, namespace)];
      const refreshed: string[] = [];
      const stores = [0, 1].map((index) => {
        const process = processes[index % processes.length];
        if (process === undefined) throw new Error('no process');
        const { keyv, lock } = process;
        return createSealedInstallationStore({
          keyv,
          encryption: new AtRestEncryption({ current: currentKey }),
          lock,
          refresh: async (refreshToken) => {
            refreshed.push(refreshToken);
            // Slack takes a moment: the other process is waiting on the lock meanwhile.
            await new Promise((resolve) => setTimeout(resolve, 100));
            return {
              accessToken: `xoxe.xoxb-1-new-${randomUUID()}`,
              refreshToken: 'xoxe-1-next',
              expiresInSec: 43_200,
            };
          },
          logger,
        });
      });
      const expiresAt = Math.floor(Date.now() / 1000) + 30 * 60;
      await stores[0]?.storeInstallation(
        installationOf('T0EXPIRE', 'xoxe.xoxb-1-old-0123456789', { refreshToken: 'xoxe-1-first', expiresAt }),
      );
      const query = { teamId: 'T0EXPIRE', enterpriseId: undefined, isEnterpriseInstall: false as const };
      const [first, second] = await Promise.all(stores.map((store) => store.fetchInstallation(query)));

      expect(refreshed).toEqual(['xoxe-1-first']);
      expect(first?.bot?.token).toMatch(/^xoxe\.xoxb-1-new-/);
      expect(second?.bot?.token).toBe(first?.bot?.token);
      // Bolt never sees a refresh token, so it never refreshes on its own.
      expect(first?.bot?.refreshToken).toBeUndefined();
      expect(first?.bot?.expiresAt).toBeUndefined();
      await processes[0]?.keyv.clear();
    });
  });
}

describe('Slack installation reads', () => {
  it('take one store read per event at steady state: a workspace’s own, or an org-wide one asked by org', async () => {
    const { keyv, lock } = openProcess('memory://', `slack-installations-test-${randomUUID()}`);
    let reads = 0;
    const get = keyv.get.bind(keyv);
    keyv.get = ((...args: Parameters<typeof keyv.get>) => {
      reads += 1;
      return get(...args);
    }) as typeof keyv.get;
    const store = createSealedInstallationStore({
      keyv,
      encryption: new AtRestEncryption({ current: currentKey }),
      lock,
      refresh: async () => {
        throw new Error('no refresh expected');
      },
      logger,
    });
    await store.storeInstallation(installationOf('T0READS', 'xoxb-reads-0123456789'));
    await store.storeInstallation({
      ...installationOf('T0UNUSED', 'xoxb-org-reads-0123456789'),
      team: undefined,
      enterprise: { id: 'E0READS', name: 'Org' },
      isEnterpriseInstall: true,
    } as Installation);
    // Bolt passes the event's workspace with an org-wide query, though @slack/oauth types it undefined.
    const orgEvent = {
      teamId: 'T0INORG',
      enterpriseId: 'E0READS',
      isEnterpriseInstall: true,
    } as unknown as InstallationQuery<true>;
    // The first event of an org's workspace notes which org it is in (for scheduled runs), once.
    await store.fetchInstallation(orgEvent);
    reads = 0;
    for (let event = 0; event < 10; event += 1) {
      await store.fetchInstallation({
        teamId: 'T0READS',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      await store.fetchInstallation(orgEvent);
    }
    expect(reads).toBe(20);
  });
});
