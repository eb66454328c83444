import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';

/** A workspace member as parley needs them: a name for the model, and whether they administer it. */
export interface SlackUser {
  readonly id: string;
  readonly name: string;
  /** A workspace admin or owner (`is_admin` / `is_owner`), who may change /model and /system. */
  readonly isAdmin: boolean;
  readonly isBot: boolean;
  /**
   * The zone of the person's Slack profile: the user object's `tz`, an IANA name beside `tz_label`
   * and `tz_offset` (api.slack.com/types/user, whose example has `"tz": "Europe/London"`). /remind
   * reads their times in it until they set their own with /timezone.
   */
  readonly timeZone: string | undefined;
}

/** Looks people up with `users.info`, remembering each answer for a while. */
export interface UserDirectory {
  /** Never throws: an unknown or unreadable user is named by their id. */
  lookUp(options: { client: webApi.WebClient; userId: string }): Promise<SlackUser>;
  /**
   * Asks Slack now, past the cache (and refreshes it), for work done later on someone's authority:
   * the person, `deactivated` (users.info `deleted`: docs.slack.dev/reference/objects/user-object,
   * "deleted: this user has been deactivated when the value of this field is true"), or `unknown`
   * (`user_not_found`). Rejects on any other failure, so the work is tried again rather than refused.
   */
  lookUpNow(options: {
    client: webApi.WebClient;
    userId: string;
  }): Promise<SlackUser | 'deactivated' | 'unknown'>;
}

interface CachedUser {
  readonly user: Promise<SlackUser>;
  readonly expiresAtMs: number;
}

/**
 * Creates the directory. Names change rarely and every mention in every message needs one, so a
 * user costs one `users.info` call per `ttlMs` (Tier 4) however often they are mentioned.
 */
export function createUserDirectory({
  logger,
  ttlMs = 10 * 60_000,
  maxEntries = 5_000,
  now = Date.now,
}: {
  logger: Logger;
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}): UserDirectory {
  const cache = new Map<string, CachedUser>();

  const fetchUser = async (client: webApi.WebClient, userId: string): Promise<SlackUser> => {
    try {
      const { user } = await client.users.info({ user: userId });
      return slackUserOf(userId, user);
    } catch (error) {
      logger.warn({ err: error, userId }, 'users.info failed; using the id as the name');
      // A failed lookup is not cached for long, so the name appears once Slack answers again.
      cache.set(userId, { user: Promise.resolve(fallbackUser(userId)), expiresAtMs: now() + 30_000 });
      return fallbackUser(userId);
    }
  };

  return {
    async lookUpNow({ client, userId }) {
      const answer = await client.users.info({ user: userId }).catch((error: unknown) => {
        if ((error as { data?: { error?: string } }).data?.error === 'user_not_found') return undefined;
        throw error;
      });
      if (answer?.user === undefined) return 'unknown';
      const person = slackUserOf(userId, answer.user);
      cache.delete(userId);
      cache.set(userId, { user: Promise.resolve(person), expiresAtMs: now() + ttlMs });
      return answer.user.deleted === true ? 'deactivated' : person;
    },
    lookUp({ client, userId }) {
      const cached = cache.get(userId);
      if (cached !== undefined && cached.expiresAtMs > now()) return cached.user;
      const user = fetchUser(client, userId);
      cache.delete(userId);
      cache.set(userId, { user, expiresAtMs: now() + ttlMs });
      // A Map keeps insertion order, so the first keys are the oldest lookups.
      for (const oldest of cache.keys()) {
        if (cache.size <= maxEntries) break;
        cache.delete(oldest);
      }
      return user;
    },
  };
}

type UsersInfoUser = NonNullable<webApi.UsersInfoResponse['user']>;

function slackUserOf(userId: string, user: UsersInfoUser | undefined): SlackUser {
  const profile = user?.profile;
  const name = profile?.display_name || profile?.real_name || user?.real_name || user?.name || userId;
  return {
    id: userId,
    name,
    isAdmin: user?.is_admin === true || user?.is_owner === true,
    isBot: user?.is_bot === true,
    timeZone: typeof user?.tz === 'string' && user.tz !== '' ? user.tz : undefined,
  };
}

function fallbackUser(userId: string): SlackUser {
  return { id: userId, name: userId, isAdmin: false, isBot: false, timeZone: undefined };
}
