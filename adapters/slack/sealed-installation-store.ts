import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../../src/log.ts';
import { type AtRestEncryption, SealedValueError } from '../../src/secrets/encryption-at-rest.ts';
import { rememberSecretValue } from '../../src/secrets/known-secret-values.ts';
import type { KeyedLock } from '../../src/state/keyed-lock.ts';
import { createInstallationTroubles, type InstallationTroubles } from './installation-troubles.ts';

/**
 * Refresh a rotating token this long before it expires. Bolt's installer refreshes within two hours
 * of expiry (`detectExpiredOrExpiringTokens` in @slack/oauth); the store does it instead, under a
 * lock, so Bolt never sees a refresh token and never refreshes on its own.
 */
export const refreshBeforeExpiryMs = 2 * 60 * 60 * 1000;
/** How long a workspace no org-wide installation listed is not asked about again. */
const askAgainAfterMs = 10 * 60 * 1000;

/** A new access token and its refresh token, from `oauth.v2.access` with `grant_type=refresh_token`. */
export interface RefreshedToken {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Seconds from now (`expires_in`). */
  readonly expiresInSec: number;
}

/** Where an installation is kept: an org-wide install by its enterprise, any other by its workspace. */
export interface InstallationAddress {
  readonly key: string;
  readonly teamId: string | undefined;
  readonly enterpriseId: string | undefined;
  readonly isEnterpriseInstall: boolean;
}

/**
 * What the store keeps of an installation: who and where in the clear (to list and to delete), and
 * the whole installation, tokens included, sealed with the record's key as the seal's context, so a
 * sealed value copied onto another workspace's record does not open.
 */
const storedInstallationSchema = z.object({
  teamId: z.string().optional(),
  enterpriseId: z.string().optional(),
  isEnterpriseInstall: z.boolean(),
  installedAtMs: z.number(),
  sealed: z.string(),
});

type StoredInstallation = z.infer<typeof storedInstallationSchema>;

/** A workspace whose stored installation cannot be read: it must install parley again. */
export class ReinstallNeededError extends Error {
  readonly address: string;
  constructor(address: string) {
    super(`the Slack installation of ${address} cannot be read; install parley in that workspace again`);
    this.address = address;
  }
}

/** Bolt's InstallationStore, plus what parley asks of it. */
export interface SealedInstallationStore extends InstallationStore {
  /** Where an installation of this query is kept, or would be. */
  addressOf(query: {
    teamId?: string;
    enterpriseId?: string;
    isEnterpriseInstall?: boolean;
  }): InstallationAddress;
  /** Every installation's address, for the console and the tests; no token is read. */
  list(): Promise<InstallationAddress[]>;
  /** The workspaces seen in an org installed org-wide (from their events). */
  teamsOfOrg(enterpriseId: string): Promise<string[]>;
  /** The org whose org-wide installation a workspace uses, as noted from its events; else undefined. */
  orgOfWorkspace(teamId: string): Promise<string | undefined>;
  /**
   * A workspace's installation for what no event brought (scheduled runs): its own, or its org's,
   * found by asking the org-wide installations (`auth.teams.list`) when no event has named it yet.
   */
  fetchInstallationOfWorkspace(teamId: string): Promise<Installation>;
  /** Whether an installation is kept exactly at this query's address (no fall-back to the org's). */
  has(query: InstallationQuery<boolean>): Promise<boolean>;
  /** Removes the installation exactly at this query's address: a workspace's never removes its org's. */
  deleteInstallation(query: InstallationQuery<boolean>): Promise<void>;
  /** Refreshes done by this process (each took the lock and found the token still old). */
  readonly refreshCount: number;
}

export interface CreateSealedInstallationStoreOptions {
  /** A namespace of parley's store (memory, SQLite, Redis, Postgres). */
  readonly keyv: Keyv;
  readonly encryption: AtRestEncryption;
  /** Held while a token is refreshed; shared by every process on Redis, so one refreshes. */
  readonly lock: KeyedLock;
  /** Calls `oauth.v2.access` with the refresh token; undefined when no installation rotates. */
  readonly refresh: (refreshToken: string) => Promise<RefreshedToken>;
  readonly logger: Logger;
  /**
   * The workspaces an org-wide installation's bot token reaches (`auth.teams.list`): how a workspace
   * no event has named yet (a scheduled run's) finds its org's installation. Absent: only events tell.
   */
  readonly workspacesOfOrg?: (botToken: string) => Promise<readonly string[]>;
  /** Where a workspace that cannot be used now is named (/readyz); default a list of its own. */
  readonly troubles?: InstallationTroubles;
  readonly now?: () => number;
}

/**
 * Slack installations in parley's store, their tokens sealed with AES-256-GCM. Every token read or
 * written is added to the values the log scrubs. A rotating bot token is refreshed here before it
 * expires, once across processes: the refresh holds the installation's lock and reads the record
 * again inside it, so a process that waited finds the new token and uses it.
 */
export function createSealedInstallationStore({
  keyv,
  encryption,
  lock,
  refresh,
  logger,
  workspacesOfOrg,
  troubles = createInstallationTroubles(),
  now = Date.now,
}: CreateSealedInstallationStoreOptions): SealedInstallationStore {
  let refreshCount = 0;
  /** Workspaces already noted as part of an org installed org-wide, by team (one write per workspace). */
  const notedOrgTeams = new Map<string, string>();
  /** When each workspace no org-wide installation listed was last asked about. */
  const unlistedTeams = new Map<string, number>();

  function addressOf(query: {
    teamId?: string;
    enterpriseId?: string;
    isEnterpriseInstall?: boolean;
  }): InstallationAddress {
    if (query.isEnterpriseInstall === true && query.enterpriseId !== undefined) {
      return {
        key: `enterprise:${query.enterpriseId}`,
        teamId: undefined,
        enterpriseId: query.enterpriseId,
        isEnterpriseInstall: true,
      };
    }
    if (query.teamId === undefined) throw new Error('a Slack installation needs a team or an enterprise');
    return {
      key: `team:${query.teamId}`,
      teamId: query.teamId,
      enterpriseId: query.enterpriseId,
      isEnterpriseInstall: false,
    };
  }

  function contextOf(key: string): string {
    return `slack-installation:${key}`;
  }

  async function readRecord(key: string): Promise<StoredInstallation | undefined> {
    const value: unknown = await keyv.get(key);
    if (value === undefined) return undefined;
    const parsed = storedInstallationSchema.safeParse(value);
    if (!parsed.success) {
      logger.error(
        { installation: key },
        'slack: an installation record is malformed; that workspace must reinstall',
      );
      throw new ReinstallNeededError(key);
    }
    return parsed.data;
  }

  function open(key: string, record: StoredInstallation): Installation {
    let plaintext: string;
    try {
      plaintext = encryption.open({ sealed: record.sealed, context: contextOf(key) });
    } catch (error) {
      if (!(error instanceof SealedValueError)) throw error;
      // The reason (unknown key, altered value) is safe to log; the value is not.
      logger.error(
        { installation: key, reason: error.message },
        'slack: an installation does not open (SLACK_INSTALLATIONS_KEY changed without _OLD, or the record was altered); that workspace must reinstall',
      );
      troubles.report(key, 'needs reinstalling (its record does not open)');
      throw new ReinstallNeededError(key);
    }
    const installation = JSON.parse(plaintext) as Installation;
    rememberTokensOf(installation);
    return installation;
  }

  async function write(address: InstallationAddress, installation: Installation, installedAtMs: number) {
    rememberTokensOf(installation);
    const record: StoredInstallation = {
      ...(address.teamId === undefined ? {} : { teamId: address.teamId }),
      ...(address.enterpriseId === undefined ? {} : { enterpriseId: address.enterpriseId }),
      isEnterpriseInstall: address.isEnterpriseInstall,
      installedAtMs,
      sealed: encryption.seal({ plaintext: JSON.stringify(installation), context: contextOf(address.key) }),
    };
    await keyv.set(address.key, record);
  }

  /** The record of a query: the workspace's own, else its org's org-wide install. */
  async function find(
    query: InstallationQuery<boolean>,
    /** Only for what no event brought (an event of an org's workspace names the org itself). */
    mayAskTheOrgs = false,
  ): Promise<{ address: InstallationAddress; record: StoredInstallation } | undefined> {
    const candidates: InstallationAddress[] = [];
    if (query.isEnterpriseInstall && query.enterpriseId !== undefined) {
      candidates.push(addressOf({ enterpriseId: query.enterpriseId, isEnterpriseInstall: true }));
    } else {
      if (query.teamId !== undefined)
        candidates.push(addressOf({ teamId: query.teamId, enterpriseId: query.enterpriseId }));
      // A workspace of an org where parley is installed org-wide uses the org's installation.
      if (query.enterpriseId !== undefined) {
        candidates.push(addressOf({ enterpriseId: query.enterpriseId, isEnterpriseInstall: true }));
      }
    }
    for (const address of candidates) {
      const record = await readRecord(address.key);
      if (record !== undefined) return { address, record };
    }
    // Asked by team alone (a scheduled run knows only the conversation's team): the org an event of
    // that team was seen under, if any.
    if (query.enterpriseId === undefined && query.teamId !== undefined && !query.isEnterpriseInstall) {
      const enterpriseId: unknown = await keyv.get(orgOfTeamKey(query.teamId));
      if (typeof enterpriseId === 'string') {
        const address = addressOf({ enterpriseId, isEnterpriseInstall: true });
        const record = await readRecord(address.key);
        if (record !== undefined) return { address, record };
      }
      if (mayAskTheOrgs) return askTheOrgs(query.teamId);
    }
    return undefined;
  }

  /**
   * A workspace no event has named yet: each org-wide installation is asked which workspaces it
   * reaches ("Obtain a full list of workspaces your org-wide app has been approved for",
   * docs.slack.dev reference/methods/auth.teams.list). Only on a miss (no workspace record, no note),
   * and the caller notes the answer, so a workspace is asked about once.
   */
  async function askTheOrgs(
    teamId: string,
  ): Promise<{ address: InstallationAddress; record: StoredInstallation } | undefined> {
    if (workspacesOfOrg === undefined || keyv.iterator === undefined) return undefined;
    // A workspace no org listed a moment ago is not asked about again at once (Tier 2).
    const askedAtMs = unlistedTeams.get(teamId);
    if (askedAtMs !== undefined && now() - askedAtMs < askAgainAfterMs) return undefined;
    for await (const [key, value] of keyv.iterator(undefined)) {
      const parsed = storedInstallationSchema.safeParse(value);
      if (typeof key !== 'string' || !parsed.success || !parsed.data.isEnterpriseInstall) continue;
      let token: string | undefined;
      try {
        token = open(key, parsed.data).bot?.token;
      } catch {
        continue; // logged by open; the other orgs are still asked
      }
      if (token === undefined || parsed.data.enterpriseId === undefined) continue;
      const teams = await workspacesOfOrg(token).catch((error: unknown) => {
        const code = (error as { data?: { error?: unknown } }).data?.error;
        logger.warn(
          { installation: key, code: typeof code === 'string' ? code : undefined },
          'slack: could not list the workspaces of an org-wide installation',
        );
        return [] as readonly string[];
      });
      if (teams.includes(teamId)) {
        unlistedTeams.delete(teamId);
        return {
          address: addressOf({ enterpriseId: parsed.data.enterpriseId, isEnterpriseInstall: true }),
          record: parsed.data,
        };
      }
    }
    unlistedTeams.set(teamId, now());
    return undefined;
  }

  function isExpiring(installation: Installation): boolean {
    const { bot } = installation;
    return (
      bot?.refreshToken !== undefined &&
      bot.expiresAt !== undefined &&
      bot.expiresAt * 1000 - now() <= refreshBeforeExpiryMs
    );
  }

  async function refreshUnderLock(
    address: InstallationAddress,
    seenToken: string | undefined,
  ): Promise<Installation> {
    return lock.run(`slack-installation-refresh:${address.key}`, async () => {
      // Read again inside the lock: another process may have refreshed while this one waited.
      const record = await readRecord(address.key);
      if (record === undefined) throw new Error(`the Slack installation of ${address.key} was removed`);
      const installation = open(address.key, record);
      const bot = installation.bot;
      if (bot?.refreshToken === undefined || bot.token !== seenToken || !isExpiring(installation)) {
        return installation;
      }
      let refreshed: RefreshedToken;
      try {
        refreshed = await refresh(bot.refreshToken);
      } catch (error) {
        const code = (error as { data?: { error?: unknown } }).data?.error;
        logger.error(
          { installation: address.key, code: typeof code === 'string' ? code : undefined },
          'slack: could not refresh the bot token of an installation; that workspace is not answered until it can',
        );
        troubles.report(address.key, `token refresh failed${typeof code === 'string' ? ` (${code})` : ''}`);
        throw new Error(`could not refresh the Slack token of ${address.key}`);
      }
      refreshCount += 1;
      const updated: Installation = {
        ...installation,
        bot: {
          ...bot,
          token: refreshed.accessToken,
          refreshToken: refreshed.refreshToken,
          expiresAt: Math.floor(now() / 1000) + refreshed.expiresInSec,
        },
      };
      await write(address, updated, record.installedAtMs);
      logger.info(
        { installation: address.key, expiresInSec: refreshed.expiresInSec },
        'slack: refreshed the bot token of an installation before it expires',
      );
      return updated;
    });
  }

  async function teamsOfOrg(enterpriseId: string): Promise<string[]> {
    const teams: string[] = [];
    for await (const [key, value] of keyv.iterator?.(undefined) ?? []) {
      if (typeof key === 'string' && key.startsWith('org-of:') && value === enterpriseId) {
        teams.push(key.slice('org-of:'.length));
      }
    }
    return teams;
  }

  /** What Bolt gets: without the refresh token and expiry, so that it never refreshes on its own. */
  function forBolt(installation: Installation): Installation {
    if (installation.bot === undefined) return installation;
    const { refreshToken: _refreshToken, expiresAt: _expiresAt, ...bot } = installation.bot;
    return { ...installation, bot };
  }

  /** An installation for Bolt: the record found, its org noted, refreshed or sealed again if due. */
  async function fetchFound(
    query: InstallationQuery<boolean>,
    mayAskTheOrgs: boolean,
  ): Promise<Installation> {
    const found = await find(query, mayAskTheOrgs);
    if (found === undefined) {
      throw new Error(
        `no Slack installation for ${query.enterpriseId ? `enterprise ${query.enterpriseId}, ` : ''}team ${query.teamId ?? '(none)'}`,
      );
    }
    let installation = open(found.address.key, found.record);
    if (found.address.isEnterpriseInstall && query.teamId !== undefined && !notedOrgTeams.has(query.teamId)) {
      if (found.address.enterpriseId !== undefined) {
        notedOrgTeams.set(query.teamId, found.address.enterpriseId);
        await keyv.set(orgOfTeamKey(query.teamId), found.address.enterpriseId);
      }
    }
    if (isExpiring(installation)) {
      installation = await refreshUnderLock(found.address, installation.bot?.token);
    } else if (encryption.needsResealing({ sealed: found.record.sealed })) {
      // Key rotation: sealed with SLACK_INSTALLATIONS_KEY_OLD, sealed again with the new key now.
      await write(found.address, installation, found.record.installedAtMs);
    }
    troubles.clear(found.address.key);
    return forBolt(installation);
  }

  return {
    addressOf,
    get refreshCount() {
      return refreshCount;
    },

    async storeInstallation(installation) {
      const address = addressOf({
        teamId: installation.team?.id,
        enterpriseId: installation.enterprise?.id,
        isEnterpriseInstall: installation.isEnterpriseInstall === true,
      });
      await write(address, installation as Installation, now());
    },

    fetchInstallation: (query) => fetchFound(query, false),

    fetchInstallationOfWorkspace: (teamId) =>
      fetchFound({ teamId, enterpriseId: undefined, isEnterpriseInstall: false }, true),

    async has(query) {
      return (await keyv.get(addressOf(query).key)) !== undefined;
    },

    async deleteInstallation(query) {
      const address = addressOf(query);
      await keyv.delete(address.key);
      troubles.clear(address.key);
      // An org's removal takes what was noted of its workspaces with it.
      if (address.isEnterpriseInstall && address.enterpriseId !== undefined) {
        const teams = await teamsOfOrg(address.enterpriseId);
        await Promise.all(teams.map((teamId) => keyv.delete(orgOfTeamKey(teamId))));
        for (const teamId of teams) notedOrgTeams.delete(teamId);
      }
    },

    teamsOfOrg,

    async orgOfWorkspace(teamId) {
      const noted = notedOrgTeams.get(teamId);
      if (noted !== undefined) return noted;
      // Another process may have noted it; a workspace of no org is read each time (one get).
      const enterpriseId: unknown = await keyv.get(orgOfTeamKey(teamId));
      if (typeof enterpriseId !== 'string') return undefined;
      notedOrgTeams.set(teamId, enterpriseId);
      return enterpriseId;
    },

    async list() {
      const addresses: InstallationAddress[] = [];
      if (keyv.iterator === undefined) return addresses;
      for await (const [key, value] of keyv.iterator(undefined)) {
        const parsed = storedInstallationSchema.safeParse(value);
        if (!parsed.success || typeof key !== 'string') continue;
        addresses.push({
          key,
          teamId: parsed.data.teamId,
          enterpriseId: parsed.data.enterpriseId,
          isEnterpriseInstall: parsed.data.isEnterpriseInstall,
        });
      }
      return addresses;
    },
  };
}

function orgOfTeamKey(teamId: string): string {
  return `org-of:${teamId}`;
}

/** Every token of an installation joins the values no log line may show. */
function rememberTokensOf(installation: Installation): void {
  rememberSecretValue(installation.bot?.token);
  rememberSecretValue(installation.bot?.refreshToken);
  rememberSecretValue(installation.user?.token);
  rememberSecretValue(installation.user?.refreshToken);
}
