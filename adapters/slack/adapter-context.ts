import type { webApi } from '@slack/bolt';
import type { CommandServices } from '../../commands/define-command.ts';
import type { Logger } from '../../src/log.ts';
import type { Deduper } from '../../src/state/dedupe.ts';
import type { ThreadStops } from './native-stop.ts';
import type { SlackDeliveryContext } from './reply-place.ts';
import type { UserDirectory } from './user-directory.ts';
import type { UserGroupDirectory } from './user-groups.ts';

/** What the Slack listeners share for the life of the adapter. */
export interface SlackAdapterContext {
  readonly services: CommandServices;
  readonly delivery: SlackDeliveryContext;
  readonly directory: UserDirectory;
  /** Who is in which user group: the roles of the access rules and role budgets. */
  readonly userGroups: UserGroupDirectory;
  /** Remembers event ids and message timestamps already answered (Slack redelivers events). */
  readonly deduper: Deduper;
  /**
   * The bot token private files are downloaded with: the one the listener's client was authorized
   * with, so each workspace's files are read with that workspace's token (OAuth installs).
   */
  botTokenFor(client: webApi.WebClient): string;
  /** Put before every command name, e.g. `parley-` for `/parley-imagine`. */
  readonly commandPrefix: string;
  readonly isReplyingToBots: boolean;
  readonly maxImageBytes: number;
  readonly logger: Logger;
  /** The replies being written in each thread, for Slack's own stop control (native-stop.ts). */
  readonly threadStops: ThreadStops;
}

/** How long a seen event id or message is remembered: Slack retries for a few minutes at most. */
export const dedupeTtlMs = 60 * 60_000;
