import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';

/**
 * Which user groups (`@designers`) each person is in, per workspace: Slack's stand-in for roles in
 * the access rules and role budgets. One `usergroups.list` (Tier 2; scope usergroups:read) per
 * workspace every `ttlMs` answers everyone; a lookup never waits for it, so a reply never waits on
 * Slack for this: it uses what is known and refreshes in the background.
 */
export interface UserGroupDirectory {
  /** The groups known for the person now (empty until the first list arrives). */
  groupsOf(options: { client: webApi.WebClient; teamId: string; userId: string }): readonly string[];
  /** Fetches the list now (at start-up), resolving when it is in. Never rejects. */
  refresh(options: { client: webApi.WebClient; teamId: string }): Promise<void>;
  /**
   * Lists the workspace's groups now, past the cache (and refreshes it), for work done later on
   * someone's authority: a group given since must count at once. An app without usergroups:read
   * counts groups as none, as a live message does; any other failure rejects, so the work is tried
   * again rather than let through on an old list.
   */
  refreshNow(options: { client: webApi.WebClient; teamId: string }): Promise<void>;
}

interface TeamGroups {
  groupIdsByUser: Map<string, string[]>;
  fetchedAtMs: number;
  refreshing: Promise<void> | undefined;
}

export function createUserGroupDirectory({
  logger,
  ttlMs = 5 * 60_000,
  now = Date.now,
}: {
  logger: Logger;
  ttlMs?: number;
  now?: () => number;
}): UserGroupDirectory {
  const teams = new Map<string, TeamGroups>();
  const refresh = ({ client, teamId }: { client: webApi.WebClient; teamId: string }): Promise<void> => {
    const team = teams.get(teamId) ?? { groupIdsByUser: new Map(), fetchedAtMs: 0, refreshing: undefined };
    teams.set(teamId, team);
    team.refreshing ??= fetchGroups(client)
      .then((groupIdsByUser) => {
        team.groupIdsByUser = groupIdsByUser;
      })
      .catch((error: unknown) => {
        // Without usergroups:read (an app made from an older manifest) groups simply count as none.
        logger.warn({ err: error, teamId }, 'slack: usergroups.list failed; user groups count as none');
      })
      .finally(() => {
        team.fetchedAtMs = now();
        team.refreshing = undefined;
      });
    return team.refreshing;
  };
  return {
    groupsOf({ client, teamId, userId }) {
      const team = teams.get(teamId);
      if (team === undefined || now() - team.fetchedAtMs > ttlMs) void refresh({ client, teamId });
      return teams.get(teamId)?.groupIdsByUser.get(userId) ?? [];
    },
    refresh,
    async refreshNow({ client, teamId }) {
      const groupIdsByUser = await fetchGroups(client).catch((error: unknown) => {
        if ((error as { data?: { error?: string } }).data?.error === 'missing_scope') return new Map();
        throw error;
      });
      teams.set(teamId, { groupIdsByUser, fetchedAtMs: now(), refreshing: undefined });
    },
  };
}

async function fetchGroups(client: webApi.WebClient): Promise<Map<string, string[]>> {
  const result = await client.usergroups.list({ include_users: true });
  const groupIdsByUser = new Map<string, string[]>();
  for (const group of result.usergroups ?? []) {
    if (group.id === undefined) continue;
    for (const userId of group.users ?? []) {
      groupIdsByUser.set(userId, [...(groupIdsByUser.get(userId) ?? []), group.id]);
    }
  }
  return groupIdsByUser;
}
