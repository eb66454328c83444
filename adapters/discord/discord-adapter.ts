import { createHash } from 'node:crypto';
import type { RESTOptions } from '@discordjs/rest';
import { Client, type ClientOptions, Events, type Interaction, type Message, Partials } from 'discord.js';
import type { Keyv } from 'keyv';
import type { CommandServices } from '../../commands/define-command.ts';
import { keepFinishingOrphanedReplies, orphanClaimTtlMs } from '../../commands/finish-orphaned-replies.ts';
import { finishOrCutReplies } from '../../src/conversation/finish-or-cut-replies.ts';
import { failOpen } from '../../src/delivery/fail-open-limit.ts';
import type { SharedRateLimit } from '../../src/delivery/redis-sliding-window.ts';
import type { Logger } from '../../src/log.ts';
import { reportPlatformConnection } from '../../src/operations/health.ts';
import { recordPlatformRequest } from '../../src/operations/metrics.ts';
import { shutdownShares } from '../../src/shut-down.ts';
import { createInMemoryDeduper, type Deduper } from '../../src/state/dedupe.ts';
import type { DiscordAdapterContext, DiscordPlatformLimits } from './adapter-context.ts';
import { answerAutocomplete } from './autocomplete.ts';
import { pressButton } from './button-handlers.ts';
import { cacheLimits } from './cache-limits.ts';
import { createCaughtUpAuthors } from './caught-up-authors.ts';
import { noPings } from './channel-surface.ts';
import { runSlashCommand } from './command-handlers.ts';
import { registerCommands } from './command-registration.ts';
import type { DiscordSettings, DiscordSharding } from './discord-config.ts';
import { discordLimits } from './discord-limits.ts';
import {
  createDiscordOutbound,
  createDiscordRateLimits,
  type DiscordOutbound,
  learnBucketSizes,
} from './discord-outbound.ts';
import { registerDiscordPlaces } from './discord-scheduled-places.ts';
import { submitFormModal } from './form-modal.ts';
import { gatewayIntents, logIn, messageContentIntentNotice } from './gateway-login.ts';
import { serverInviteLink } from './installation.ts';
import {
  createInvalidRequestGuard,
  discordInvalidRequestLimits,
  type InvalidRequestLimits,
} from './invalid-request-guard.ts';
import { runMessageAction, submitModal } from './message-action-handlers.ts';
import { handleMessage } from './message-events.ts';
import { type CatchUpLimits, createMissedMessages, discordCatchUpLimits } from './missed-messages.ts';
import { createOrphanedReplySurface, discordReplyAddressSchema } from './orphaned-reply-surface.ts';
import { createPendingValues } from './pending-modal-values.ts';
import { reportCallOutcomes } from './report-call-outcomes.ts';
import { discordRestAgent, isRenameRateLimit } from './rest-agent.ts';
import { createSharedRestGate } from './shared-rest-budget.ts';
import { createStoredWatermarks } from './stored-watermarks.ts';
import { createThreadRenames } from './thread-renames.ts';
import { createUnableToPostNotice } from './unable-to-post-notice.ts';

export interface DiscordAdapter {
  readonly client: Client;
  /** Stops taking new messages and disconnects. */
  stop(): Promise<void>;
}

/**
 * parley on Discord: answers mentions, DMs, replies to it, threads it answered in and the channels
 * configured to get every message; registers every command as a slash command; runs buttons.
 * Without the Message Content intent it comes up all the same and answers what it can read.
 */
export async function startDiscordAdapter({
  services,
  discord,
  maxImageBytes,
  logger: parentLogger,
  platformLimits = {},
  eventDeduper = createInMemoryDeduper(),
  shutdownGraceMs = 10_000,
  sharedBudget,
  invalidRequestLimits = discordInvalidRequestLimits,
  catchUpLimits = discordCatchUpLimits,
  watermarkStore,
  notifyAfterMs = 0,
}: {
  services: CommandServices;
  discord: DiscordSettings;
  maxImageBytes: number;
  logger: Logger;
  /** Discord's own values unless a test gives its fake's. */
  platformLimits?: Partial<DiscordPlatformLimits>;
  /** Messages already taken; pass the shared one when several processes run the bot. */
  eventDeduper?: Deduper;
  /** The process's SHUTDOWN_GRACE_MS: stop() lets replies finish for half of it, then cuts them. */
  shutdownGraceMs?: number;
  /** The bot token's request budget shared by every process (Redis); undefined: this process alone. */
  sharedBudget?: SharedRateLimit;
  /** Discord's Invalid Request Limit, unless a test lowers it to reach it in seconds. */
  invalidRequestLimits?: InvalidRequestLimits;
  /** How far a catch-up after a fresh identify reads, unless a test lowers it. */
  catchUpLimits?: CatchUpLimits;
  /**
   * Where the catch-up's watermarks outlive the process (a namespace of the bot's store), so a new
   * process answers what was asked while none ran; stop() disconnects it. Undefined: memory only.
   */
  watermarkStore?: Keyv;
  /** NOTIFY_AFTER_S in milliseconds: a slower reply tells its asker it is done; 0 never. */
  notifyAfterMs?: number;
}): Promise<DiscordAdapter> {
  const logger = parentLogger.child({ adapter: 'discord' });
  // One budget per token; the key is a digest, since a token must never be written anywhere.
  const botKey = createHash('sha256').update(discord.token).digest('hex').slice(0, 32);
  const rateLimits = createDiscordRateLimits();
  const outbound = createDiscordOutbound(
    rateLimits,
    sharedBudget && {
      limit: failOpen({ limit: sharedBudget, logger, what: 'the shared Discord request budget' }),
      key: botKey,
    },
  );
  const lifecycle = { isStopping: false };
  const shared: SharedContext = {
    services,
    discord,
    outbound,
    rateLimits,
    maxImageBytes,
    logger,
    eventDeduper,
    tellUnableToPost: createUnableToPostNotice({ logger }),
    threadRenames: createThreadRenames(),
    pendingQuestions: createPendingValues(),
    pendingForms: createPendingValues(),
    missedMessages: createMissedMessages({
      outbound,
      logger,
      limits: catchUpLimits,
      ...(watermarkStore ? { stored: createStoredWatermarks({ store: watermarkStore }) } : {}),
    }),
    notifyAfterMs,
    limits: {
      requestBytes: platformLimits.requestBytes ?? discordLimits.requestBytes,
      interactionTokenLifetimeMs:
        platformLimits.interactionTokenLifetimeMs ?? discordLimits.interactionTokenLifetimeMs,
    },
  };
  // Every REST call of every client of the adapter passes the invalid request guard, so a request it
  // withholds takes no slot of the shared budget; outside it, each outcome is told to /readyz.
  const makeRequest = reportCallOutcomes(
    createInvalidRequestGuard({
      logger,
      limits: invalidRequestLimits,
      ...(sharedBudget
        ? { baseRequest: createSharedRestGate({ window: sharedBudget, botKey, logger }) }
        : {}),
    }).makeRequest,
  );
  const connect = async (canReadMessageContent: boolean) => {
    const adapter = createAdapterContext({ shared, canReadMessageContent, makeRequest });
    listen({ adapter, lifecycle });
    const outcome = await logIn({ client: adapter.client, token: discord.token });
    return outcome === 'ready' ? adapter : undefined;
  };

  let adapter = await connect(true);
  if (!adapter) {
    logger.warn(messageContentIntentNotice);
    adapter = await connect(false);
    if (!adapter) throw new Error('discord refused the gateway intents even without Message Content');
  }
  const { client } = adapter;
  logger.info(
    {
      botUserId: client.user?.id,
      guildCount: client.guilds.cache.size,
      shardIds: client.options.shards,
      shardCount: client.options.shardCount,
    },
    'connected to discord',
  );
  // The first thing a new owner needs, with the application id they would otherwise look up.
  if (client.application) {
    logger.info({ inviteLink: serverInviteLink(client.application.id) }, 'invite parley to a server');
  }
  // Every process would register the same commands; the one that runs shard 0 does it for all.
  if (runsFirstShard(client)) await registerCommands({ client, discord, logger });
  const stopSweeping = finishRepliesLeftByARestart({
    client,
    outbound: adapter.outbound,
    services,
    eventDeduper,
  });

  return {
    client,
    async stop() {
      // Take no new work, let replies finish (or cut them with a note), then disconnect: the client
      // is what their last edits go through.
      lifecycle.isStopping = true;
      stopSweeping();
      await finishOrCutReplies({ ...services, ...shutdownShares(shutdownGraceMs) });
      // Last, what the next process catches up from: every message this one saw before stopping.
      await shared.missedMessages.close();
      await client.destroy();
      await watermarkStore?.disconnect();
      reportPlatformConnection({ platform: 'discord', isConnected: false, state: 'stopped' });
    },
  };
}

/**
 * In the background: replies a killed process left half-written get their text, a note and buttons;
 * now, and while running when the store is shared. Returns the function that stops the sweeps.
 */
function finishRepliesLeftByARestart({
  client,
  outbound,
  services,
  eventDeduper,
}: {
  client: Client;
  outbound: DiscordOutbound;
  services: CommandServices;
  eventDeduper: Deduper;
}): () => void {
  // Scheduled runs reach channels and DMs the same way, from the same moment on.
  const unregisterPlaces = registerDiscordPlaces({ client, outbound, services });
  const stopSweeping = keepFinishingOrphanedReplies({
    services,
    platform: 'discord',
    claim: (journalKey) => eventDeduper.isFirstSighting(`orphan:${journalKey}`, orphanClaimTtlMs),
    surfaceAt: ({ address, messages }) => {
      const parsed = discordReplyAddressSchema.safeParse(address);
      return parsed.success
        ? createOrphanedReplySurface({ client, address: parsed.data, messages })
        : undefined;
    },
  });
  return () => {
    stopSweeping();
    unregisterPlaces();
  };
}

/**
 * discord.js's own sharding options: it identifies each shard with `[shard_id, num_shards]`, and
 * Discord routes each guild's events to shard (guild_id >> 22) % num_shards
 * (https://discord.com/developers/docs/events/gateway#sharding).
 */
function shardOptions(sharding: DiscordSharding | undefined): Pick<ClientOptions, 'shards' | 'shardCount'> {
  if (sharding === undefined) return {};
  if (sharding === 'auto') return { shards: 'auto' };
  return { shards: [...sharding.shardIds], shardCount: sharding.shardCount };
}

function runsFirstShard(client: Client): boolean {
  const { shards } = client.options;
  return !Array.isArray(shards) || shards.includes(0);
}

/** What every client of the adapter shares; a client adds itself and what it may read. */
type SharedContext = Omit<DiscordAdapterContext, 'client' | 'canReadMessageContent' | 'platformNotices'>;

function createAdapterContext({
  shared,
  canReadMessageContent,
  makeRequest,
}: {
  shared: SharedContext;
  /** Every REST call goes through it: the invalid request guard, then the shared budget if any. */
  makeRequest: RESTOptions['makeRequest'];
  canReadMessageContent: boolean;
}): DiscordAdapterContext {
  const client = new Client({
    intents: gatewayIntents({ canReadMessageContent }),
    // DMs arrive on channels the client has not cached; without these partials they are dropped.
    partials: [Partials.Channel, Partials.Message],
    rest: {
      api: shared.discord.apiUrl,
      agent: discordRestAgent(),
      rejectOnRateLimit: isRenameRateLimit,
      makeRequest,
    },
    allowedMentions: noPings,
    ...cacheLimits(),
    ...shardOptions(shared.discord.sharding),
  });
  learnBucketSizes({ rest: client.rest, limits: shared.rateLimits });
  return {
    ...shared,
    client,
    canReadMessageContent,
    platformNotices: canReadMessageContent ? [] : [messageContentIntentNotice],
  };
}

function listen({
  adapter,
  lifecycle,
}: {
  adapter: DiscordAdapterContext;
  lifecycle: { readonly isStopping: boolean };
}): void {
  const { client, logger } = adapter;
  const answerMessage = (message: Message) =>
    handleMessage({ message, adapter }).catch((error: unknown) =>
      logger.error({ err: error, channelId: message.channelId }, 'message handling failed'),
    );
  client.on(Events.MessageCreate, (message: Message) => {
    // A stopping process answers nothing new, so it leaves what arrives now to the next one's catch-up.
    if (lifecycle.isStopping) return;
    adapter.missedMessages.noteSeen(message);
    void answerMessage(message);
  });
  // A READY (not a RESUMED) is a fresh session: what was sent in the gap never arrives, so it is
  // read and the mentions and DMs in it answered through the same path as any message.
  const handOnCaughtUp = createCaughtUpAuthors({ client, logger, now: adapter.services.now });
  client.on(Events.ShardReady, (shardId) => {
    if (lifecycle.isStopping) return;
    adapter.missedMessages
      .catchUp({
        client,
        shardId,
        answer: (message) =>
          handOnCaughtUp(message, (checked) => {
            if (!lifecycle.isStopping) void answerMessage(checked);
          }),
      })
      .catch((error: unknown) =>
        logger.warn({ err: error, shardId }, 'catching up after a reconnect failed'),
      );
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (lifecycle.isStopping) return;
    handleInteraction({ interaction, adapter }).catch((error: unknown) =>
      logger.error({ err: error, interactionId: interaction.id }, 'interaction handling failed'),
    );
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  client.rest.on('rateLimited', (info) =>
    logger.warn(
      { route: info.route, retryAfterMs: info.retryAfter, isGlobal: info.global },
      'discord rate limit hit',
    ),
  );
  reportOperations(client);
}

/** The connection for /readyz, every REST call and 429 for /metrics. */
function reportOperations(client: Client): void {
  const reportConnection = (isConnected: boolean, state?: string) =>
    reportPlatformConnection({ platform: 'discord', isConnected, ...(state ? { state } : {}) });
  client.on(Events.ShardReady, () => reportConnection(true));
  client.on(Events.ShardResume, () => reportConnection(true));
  client.on(Events.ShardReconnecting, () => reportConnection(false, 'reconnecting'));
  client.on(Events.ShardDisconnect, (event) => reportConnection(false, `disconnected (code ${event.code})`));
  client.rest.on('response', (request, response) =>
    recordPlatformRequest({
      platform: 'discord',
      routeClass: `${request.method} ${request.route}`,
      status: response.status,
    }),
  );
}

async function handleInteraction({
  interaction,
  adapter,
}: {
  interaction: Interaction;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  if (interaction.isAutocomplete()) return answerAutocomplete({ interaction, services: adapter.services });
  if (interaction.isChatInputCommand()) return runSlashCommand({ interaction, adapter });
  if (interaction.isMessageContextMenuCommand()) return runMessageAction({ interaction, adapter });
  if (interaction.isModalSubmit()) {
    if (await submitFormModal({ interaction, adapter })) return;
    await submitModal({ interaction, adapter });
    return;
  }
  if (interaction.isButton()) return pressButton({ interaction, adapter });
}
