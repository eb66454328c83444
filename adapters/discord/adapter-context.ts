import type { Client, Message } from 'discord.js';
import type { CommandServices } from '../../commands/define-command.ts';
import type { Logger } from '../../src/log.ts';
import type { Deduper } from '../../src/state/dedupe.ts';
import type { DiscordSettings } from './discord-config.ts';
import type { DiscordOutbound, DiscordRateLimits } from './discord-outbound.ts';
import type { MissedMessages } from './missed-messages.ts';
import type { PendingForm, PendingQuestions, PendingValues } from './pending-modal-values.ts';
import type { ThreadRenames } from './thread-renames.ts';

/**
 * Discord's documented limits that depend on nothing parley knows at start. The defaults are
 * Discord's; tests shrink them to match a fake instead of waiting 15 minutes or sending 25 MiB.
 */
export interface DiscordPlatformLimits {
  /** The largest request that sends a message, files included (Discord: 25 MiB). */
  readonly requestBytes: number;
  /** How long an interaction token takes edits and follow-ups (Discord: 15 minutes). */
  readonly interactionTokenLifetimeMs: number;
}

/** What the Discord event handlers share for the life of one logged-in client. */
export interface DiscordAdapterContext {
  readonly client: Client;
  readonly services: CommandServices;
  readonly discord: DiscordSettings;
  /** The bot's one outbound queue: every channel call waits its turn in it. */
  readonly outbound: DiscordOutbound;
  /** The limits it keeps, which Discord's answers resize (`learnBucketSizes`). */
  readonly rateLimits: DiscordRateLimits;
  readonly maxImageBytes: number;
  readonly logger: Logger;
  /**
   * Messages already taken by this or another process: after a resume the gateway may deliver a
   * message again, and during a rolling restart two processes may hold the same shard for a moment.
   */
  readonly eventDeduper: Deduper;
  /**
   * Whether the gateway gives the content of every message (the privileged Message Content
   * intent); without it only DMs and messages that mention the bot carry their content.
   */
  readonly canReadMessageContent: boolean;
  /** What /help tells people about how parley runs here, such as a missing intent. */
  readonly platformNotices: readonly string[];
  readonly limits: DiscordPlatformLimits;
  /** Tells a person, privately and not too often, why parley did not answer them in a channel. */
  readonly tellUnableToPost: (message: Message, permission: string) => Promise<void>;
  /** Renames of threads, kept within Discord's two per ten minutes. */
  readonly threadRenames: ThreadRenames;
  /** Messages a person asked about, waiting for the question their modal asks. */
  readonly pendingQuestions: PendingQuestions;
  /** Forms opened as modals, waiting for their submission. */
  readonly pendingForms: PendingValues<PendingForm>;
  /** A reply slower than this tells its asker it is done (NOTIFY_AFTER_S; 0: never). */
  readonly notifyAfterMs: number;
  /** The newest message seen where parley is active, read after from a fresh identify. */
  readonly missedMessages: MissedMessages;
}

/**
 * How long a message id is remembered: far longer than a resume or a hand-over takes (Discord
 * replays what a session missed when it resumes, https://discord.com/developers/docs/events/gateway#resuming).
 */
export const messageDedupeTtlMs = 10 * 60_000;

/** The bot's own user id once logged in; empty before READY. */
export function botUserIdOf(context: DiscordAdapterContext): string {
  return context.client.user?.id ?? '';
}
