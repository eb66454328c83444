import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayUrl } from './account-routes.ts';
import { apiChannel, apiGuildCreate, apiMember, apiRole } from './api-objects.ts';
import { type AttachmentDownload, createAttachmentHosting, type FakeFile } from './attachment-hosting.ts';
import { createChangeFeed, type FakeDiscordEvent, type WaitForOptions } from './change-feed.ts';
import { createCommandRegistry, type RegisteredCommand } from './command-registry.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { guildsDispatch, intents } from './gateway-intents.ts';
import { gatewayPayloads } from './gateway-payloads.ts';
import { createGatewayServer } from './gateway-server.ts';
import {
  createInteractionStore,
  type FakeInteraction,
  type InteractionResponse,
} from './interaction-store.ts';
import {
  createInvalidRequestCounter,
  type InvalidRequestLimit,
  type InvalidRequestState,
} from './invalid-requests.ts';
import { createMemberChanges, type MemberChanges } from './member-changes.ts';
import { messageLimits } from './message-limits.ts';
import { createMessageStore, type FakeMessage } from './message-store.ts';
import { createFakeOAuth, type FakeOAuth } from './oauth-routes.ts';
import { type BotPermission, bitsOf } from './permissions.ts';
import {
  createRateLimiter,
  type ForcedRateLimit,
  type RateLimitHits,
  type RateLimitOptions,
} from './rate-limiter.ts';
import type { RestCall } from './rest-call.ts';
import { createRestHandler, knownRouteNames } from './rest-handler.ts';
import { createSnowflakeGenerator } from './snowflake.ts';
import type { SpecificationViolation } from './specification-check.ts';
import { watchSpecificationViolations } from './specification-violations.ts';
import { createStartingWorld } from './starting-world.ts';
import { createUserActions, type UserActions } from './user-actions.ts';
import type { FakeChannel, FakeUser } from './world.ts';

/** How to start the fake. Everything is optional. */
export interface FakeDiscordOptions {
  /** The bot token. Default: a random token in Discord's three-part shape. */
  token?: string;
  /** Port on 127.0.0.1. Default 0: a free port chosen by the system. */
  port?: number;
  /** The bot's username. Default `parley`. */
  botUsername?: string;
  /** Text channels the guild has at start (`general`, `random`, `channel-3`, ...). Default 2. */
  textChannelCount?: number;
  /** The shard count /gateway/bot recommends, what `auto` sharding runs. Default 1. */
  recommendedShardCount?: number;
  /** The limits to enforce, or `false` for none. Default: Discord's (see `RateLimitOptions`). */
  rateLimits?: RateLimitOptions | false;
  /** The Invalid Request Limit and its ban. Default: Discord's, 10,000 per 10 minutes, banned for an hour. */
  invalidRequestLimit?: Partial<InvalidRequestLimit>;
  /** The upload limit a file, sent to the bot as `attachment_size_limit`. Default 10 MiB. */
  attachmentSizeLimitBytes?: number;
  /** The largest request body that sends a message, files included. Default 25 MiB. */
  requestSizeLimitBytes?: number;
  /** How long the first interaction callback is accepted. Default 3,000 ms, as on Discord. */
  interactionResponseDeadlineMs?: number;
  /** How long an interaction token works for edits and follow-ups. Default 15 minutes. */
  interactionTokenLifetimeMs?: number;
  /** What HELLO asks the client to heartbeat at. Default 41,250 ms, Discord's usual value. */
  heartbeatIntervalMs?: number;
  /**
   * Whether the application has the Message Content privileged intent (the Developer Portal's
   * toggle, or the approval of a verified app). Default `true`; when `false`, an IDENTIFY that asks
   * for it is closed with 4014.
   */
  isMessageContentIntentEnabled?: boolean;
  /**
   * Whether every REST request is checked against Discord's OpenAPI specification (issue 27,
   * "Proof"). Default `true`. The benches say `false`: the first check of each operation compiles
   * its validator, a 60–180 ms stall of the fake's event loop that would land on whichever bot is
   * measured first (docs/benchmarks.md, "The OpenAPI check").
   */
  isCheckingSpecification?: boolean;
}

/** A running fake Discord: REST under `/api/v10`, the gateway WebSocket and a file host. */
export interface FakeDiscord extends UserActions, MemberChanges {
  /** E.g. `http://127.0.0.1:43121`. */
  readonly origin: string;
  /** What discord.js takes as `rest: { api }`: `${origin}/api` (the client adds `/v10`). */
  readonly apiUrl: string;
  readonly port: number;
  /** Discord's OAuth2 pages and token URL, and the Bearer routes a signed-in person's token reaches. */
  readonly oauth: FakeOAuth;
  readonly token: string;
  /** The application id, which is also the bot's user id, as for Discord bots. */
  readonly applicationId: string;
  readonly bot: FakeUser;
  /** The person who acts when a test names nobody. */
  readonly user: FakeUser;
  /** The guild that exists at start. */
  readonly guildId: string;
  /** Its text channels at start, `general` first. */
  readonly textChannelIds: readonly string[];
  /** A public thread in `general`. */
  readonly threadId: string;
  /** Every REST request answered, oldest first. Cleared in place by `reset()`. */
  readonly requests: readonly RestCall[];
  /**
   * Requests Discord's OpenAPI specification forbids (specification-check.ts), answered as Discord
   * would (400 with 50035, 404, 405) and kept here: a test that makes one fails when it ends
   * (test/support/specification-violations-setup.ts) unless it takes them with
   * `takeSpecificationViolations()`. `reset()` keeps them.
   */
  readonly specificationViolations: readonly SpecificationViolation[];
  /** The violations so far, removed: a test of a refusal takes the one it caused and checks it. */
  takeSpecificationViolations(): SpecificationViolation[];
  /** 429s served, by kind and route. Reset by `reset()`. */
  readonly rateLimitHits: Readonly<RateLimitHits>;
  /** Invalid requests (401, 403, 429 not `shared`) in the window, and whether the client is banned. Reset by `reset()`. */
  readonly invalidRequests: InvalidRequestState;
  /** Gateway connections that have identified and are still open: 1 once a bot is logged in. */
  readonly identifiedSessionCount: number;
  /** The `[shard_id, num_shards]` of each open session (undefined: it did not shard). */
  readonly identifiedShards: ReadonlyArray<readonly [number, number] | undefined>;

  /**
   * Adds a guild the bot is in, with `textChannelCount` text channels (default 1), announced with
   * GUILD_CREATE to the shard that owns it.
   */
  createGuild(options?: { name?: string; textChannelCount?: number }): {
    guildId: string;
    textChannelIds: string[];
  };

  createUser(options: { username: string; globalName?: string }): FakeUser;
  /**
   * A server the bot was never added to, with one text channel: only a person's own install of the
   * app reaches it (application-commands.mdx, "Installation Context").
   */
  createGuildWithoutBot(options?: { name?: string }): { guildId: string; channelId: string };
  /** Adds a text channel (dispatching CHANNEL_CREATE) and returns its id. */
  createTextChannel(options?: { name?: string; guildId?: string }): string;
  /**
   * Adds a forum (GUILD_FORUM) or media (GUILD_MEDIA) channel with these tags, dispatching
   * CHANNEL_CREATE, and returns its id; its tags' ids are in `channel(id).availableTags`.
   */
  createThreadOnlyChannel(options: {
    kind: 'forum' | 'media';
    name?: string;
    tags?: readonly { name: string; isModerated?: boolean }[];
    /** The REQUIRE_TAG flag: every new post needs a tag. */
    requiresTag?: boolean;
  }): string;
  /**
   * Adds a thread under `parentId` and returns its id. A public one is announced with THREAD_CREATE;
   * a private one only when the bot is among `memberIds`, since only members see it.
   */
  createThread(options: {
    parentId: string;
    name?: string;
    isPrivate?: boolean;
    memberIds?: readonly string[];
    /** Who started it (a person's forum post); default: nobody the bot knows, shown as the bot. */
    ownerId?: string;
  }): string;
  /**
   * Adds someone to a thread. When it is the bot, Discord sends THREAD_CREATE (for a private thread)
   * and THREAD_MEMBERS_UPDATE (topics/threads.mdx, "Thread Membership", "Thread Access").
   */
  addThreadMember(threadId: string, userId: string): void;
  /** The id of the DM channel between the bot and a person (default: `user`). */
  directMessageChannel(userId?: string): string;
  /**
   * Adds a role to the guild (dispatching GUILD_ROLE_CREATE, and GUILD_MEMBER_UPDATE when the bot
   * gets it) and returns its id. Give the bot `mention-everyone` to let its messages ping.
   */
  createRole(options: {
    name: string;
    isMentionable?: boolean;
    permissions?: readonly BotPermission[];
    memberIds?: readonly string[];
  }): string;
  /** Takes permissions from the bot in a channel through a member overwrite (dispatching CHANNEL_UPDATE). */
  denyBotPermissions(channelId: string, permissions: readonly BotPermission[]): void;

  /** A channel as the fake holds it (a thread's name, archive duration and renames), if it exists. */
  channel(channelId: string): Readonly<FakeChannel> | undefined;
  /** The messages of a channel, oldest first, ephemeral ones included. */
  messages(channelId: string): FakeMessage[];
  message(messageId: string): FakeMessage | undefined;
  interaction(interactionId: string): FakeInteraction | undefined;
  /** The callbacks the bot sent for an interaction. */
  interactionResponses(interactionId: string): InteractionResponse[];
  /** Commands registered globally, or for one guild. */
  registeredCommands(guildId?: string): RegisteredCommand[];
  /** The files of a message with their bytes. */
  uploadedFiles(messageId: string): FakeFile[];
  /** Every GET of an attachment link on the fake's CDN, with the status it got. */
  readonly attachmentDownloads: readonly AttachmentDownload[];
  /** Moves the CDN's clock forward: attachment links issued before may expire (they live 24 h). */
  advanceAttachmentClock(elapsedMs: number): void;
  /** Calls `listener` on every change; returns the function that stops it. */
  subscribe(listener: (event: FakeDiscordEvent) => void): () => void;
  /** Resolves with the first truthy value of `check`, evaluated on every change. */
  waitFor<Value>(check: () => Value | undefined | null | false, options?: WaitForOptions): Promise<Value>;

  /** Refuses the next requests to a route with 429 and the given `Retry-After`. */
  forceRateLimit(forced: ForcedRateLimit): void;
  /** Replaces the enforced limits and forgets the current windows. */
  setRateLimits(options: RateLimitOptions | false): void;
  /** Flips the Message Content intent toggle; it applies to the next IDENTIFY. */
  setMessageContentIntentEnabled(isEnabled: boolean): void;
  /** Closes every gateway connection with `code` (default 4000, which clients recover from). */
  disconnectGateway(code?: number): void;
  /**
   * Loses every gateway session, as when a client cannot resume (events/gateway.mdx, "Resuming":
   * INVALID_SESSION with `d: false`, then a new IDENTIFY): messages sent until `end()` are stored
   * but reach no client and are never replayed; the client's new IDENTIFY is answered at `end()`.
   */
  interruptGateway(): { end(): void };
  /** Forgets messages, interactions, commands, files, requests and 429 counts; keeps guilds and people. */
  reset(): void;
  /** Closes the gateway and the server and destroys every connection. */
  close(): Promise<void>;
}

/** Starts a fake Discord on 127.0.0.1 that the real discord.js client can log in to. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const ids = createSnowflakeGenerator();
  const { world, user, guild, textChannels, thread } = createStartingWorld(ids, options);
  const token = options.token ?? defaultToken(world.bot.id);

  const context: FakeDiscordContext = {
    origin: '',
    token,
    applicationId: world.bot.id,
    ids,
    world,
    messages: createMessageStore(),
    attachments: createAttachmentHosting(ids, () => context.origin),
    interactions: createInteractionStore(),
    commands: createCommandRegistry(ids, world.bot.id),
    gateway: createGatewayServer({
      token,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      ...gatewayPayloads(world, () => gatewayUrl(context)),
      disallowedIntents: () => (context.settings.isMessageContentIntentEnabled ? 0 : intents.messageContent),
    }),
    changes: createChangeFeed(),
    rateLimiter: createRateLimiter(options.rateLimits ?? {}),
    invalidRequests: createInvalidRequestCounter(options.invalidRequestLimit),
    requests: [],
    specificationViolations: [],
    isCheckingSpecification: options.isCheckingSpecification ?? true,
    settings: {
      attachmentSizeLimitBytes: options.attachmentSizeLimitBytes ?? messageLimits.attachmentSizeBytes,
      requestSizeLimitBytes: options.requestSizeLimitBytes ?? messageLimits.requestSizeBytes,
      interactionResponseDeadlineMs: options.interactionResponseDeadlineMs ?? 3000,
      interactionTokenLifetimeMs: options.interactionTokenLifetimeMs ?? 15 * 60 * 1000,
      isMessageContentIntentEnabled: options.isMessageContentIntentEnabled ?? true,
      recommendedShardCount: options.recommendedShardCount ?? 1,
    },
  };

  const oauth = createFakeOAuth({ world, startingUserId: user.id });
  const restHandler = createRestHandler(context);
  const server = createServer((request, response) => {
    if (!oauth.serve(request, response, new URL(request.url ?? '/', context.origin)))
      restHandler(request, response);
  });
  server.on('upgrade', (request, socket, head) => {
    if (!context.gateway.handleUpgrade(request, socket, head)) {
      socket.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  context.origin = `http://127.0.0.1:${port}`;

  function dispatchChannel(
    eventName: string,
    channel: FakeChannel,
    extra: Record<string, unknown> = {},
  ): void {
    context.gateway.dispatch(eventName, guildsDispatch({ ...apiChannel(channel, world), ...extra }));
  }

  const takeSpecificationViolations = () => context.specificationViolations.splice(0);
  watchSpecificationViolations({ label: context.origin, takeSpecificationViolations });

  return {
    ...createUserActions(context, user),
    ...createMemberChanges(context, guild),
    origin: context.origin,
    apiUrl: `${context.origin}/api`,
    oauth,
    port,
    token,
    applicationId: context.applicationId,
    bot: world.bot,
    user,
    guildId: guild.id,
    textChannelIds: textChannels.map((channel) => channel.id),
    threadId: thread.id,
    requests: context.requests,
    specificationViolations: context.specificationViolations,
    takeSpecificationViolations,
    rateLimitHits: context.rateLimiter.hits,
    invalidRequests: context.invalidRequests,
    get identifiedSessionCount() {
      return context.gateway.identifiedSessionCount;
    },
    get identifiedShards() {
      return context.gateway.identifiedShards;
    },
    createGuild(guildOptions = {}) {
      const added = world.addGuild({
        name: guildOptions.name ?? `Guild ${world.guilds.size + 1}`,
        ownerId: user.id,
      });
      const channelIds: string[] = [];
      for (let index = 0; index < Math.max(1, guildOptions.textChannelCount ?? 1); index += 1) {
        channelIds.push(world.addTextChannel({ guildId: added.id, name: `channel-${index + 1}` }).id);
      }
      context.gateway.dispatch('GUILD_CREATE', guildsDispatch(apiGuildCreate(added, world)));
      return { guildId: added.id, textChannelIds: channelIds };
    },
    createUser: (userOptions) => world.addUser(userOptions),
    createGuildWithoutBot(guildOptions = {}) {
      const other = world.addGuild({
        name: guildOptions.name ?? 'elsewhere',
        ownerId: user.id,
        isBotMember: false,
      });
      const channel = world.addTextChannel({ guildId: other.id, name: 'general' });
      return { guildId: other.id, channelId: channel.id };
    },
    createTextChannel(channelOptions = {}) {
      const channel = world.addTextChannel({
        guildId: channelOptions.guildId ?? guild.id,
        name: channelOptions.name ?? `channel-${world.channels.size + 1}`,
      });
      dispatchChannel('CHANNEL_CREATE', channel);
      return channel.id;
    },
    createThreadOnlyChannel(channelOptions) {
      const channel = world.addThreadOnlyChannel({
        guildId: guild.id,
        kind: channelOptions.kind,
        name: channelOptions.name ?? channelOptions.kind,
        tags: channelOptions.tags ?? [],
        requiresTag: channelOptions.requiresTag ?? false,
      });
      dispatchChannel('CHANNEL_CREATE', channel);
      return channel.id;
    },
    createThread(threadOptions) {
      const channel = world.addThread({
        parentId: threadOptions.parentId,
        name: threadOptions.name ?? 'thread',
        ...(threadOptions.isPrivate === undefined ? {} : { isPrivate: threadOptions.isPrivate }),
        ...(threadOptions.memberIds === undefined ? {} : { memberIds: threadOptions.memberIds }),
        ...(threadOptions.ownerId === undefined ? {} : { ownerId: threadOptions.ownerId }),
      });
      if (world.botCanView(channel)) {
        dispatchChannel('THREAD_CREATE', channel, { newly_created: true });
      }
      return channel.id;
    },
    addThreadMember(threadId, userId) {
      const channel = world.requireChannel(threadId);
      world.requireUser(userId);
      if (channel.kind !== 'thread' || channel.threadMemberIds.includes(userId)) {
        return;
      }
      channel.threadMemberIds.push(userId);
      if (userId !== world.bot.id) {
        return;
      }
      if (channel.isPrivate) {
        dispatchChannel('THREAD_CREATE', channel);
      }
      const member = { id: channel.id, user_id: userId, join_timestamp: new Date().toISOString(), flags: 0 };
      context.gateway.dispatch(
        'THREAD_MEMBERS_UPDATE',
        guildsDispatch({
          id: channel.id,
          guild_id: channel.guildId,
          member_count: channel.threadMemberIds.length,
          added_members: [member],
        }),
      );
    },
    directMessageChannel: (userId = user.id) => world.directMessageChannel(userId).channel.id,
    createRole(roleOptions) {
      const role = world.addRole(guild.id, {
        name: roleOptions.name,
        permissions: bitsOf(roleOptions.permissions ?? []),
        isMentionable: roleOptions.isMentionable ?? false,
        memberIds: roleOptions.memberIds ?? [],
      });
      context.gateway.dispatch(
        'GUILD_ROLE_CREATE',
        guildsDispatch({ guild_id: guild.id, role: apiRole(role) }),
      );
      if (role.memberIds.includes(world.bot.id)) {
        // events/gateway.mdx, "Caveats": sent for the current user whatever the intents.
        const member = { ...apiMember(guild, world.bot), guild_id: guild.id };
        context.gateway.dispatch('GUILD_MEMBER_UPDATE', () => member);
      }
      return role.id;
    },
    denyBotPermissions(channelId, permissions) {
      const channel = world.requireChannel(channelId);
      channel.deniedBotPermissions = [...new Set([...channel.deniedBotPermissions, ...permissions])];
      dispatchChannel(channel.kind === 'thread' ? 'THREAD_UPDATE' : 'CHANNEL_UPDATE', channel);
    },
    channel: (channelId) => world.channels.get(channelId),
    messages: (channelId) => context.messages.inChannel(channelId),
    message: (messageId) => context.messages.get(messageId),
    interaction: (interactionId) => context.interactions.get(interactionId),
    interactionResponses: (interactionId) => context.interactions.get(interactionId)?.responses ?? [],
    registeredCommands: (guildId) => context.commands.list(guildId ?? 'global'),
    uploadedFiles(messageId) {
      return (context.messages.get(messageId)?.attachments ?? []).map((attachment) => ({
        filename: attachment.filename,
        contentType: attachment.contentType,
        bytes: context.attachments.bytesOf(attachment.id) ?? new Uint8Array(),
        ...(attachment.description === null ? {} : { description: attachment.description }),
      }));
    },
    attachmentDownloads: context.attachments.downloads,
    advanceAttachmentClock: (elapsedMs) => context.attachments.advanceClock(elapsedMs),
    subscribe: (listener) => context.changes.subscribe(listener),
    waitFor: (check, waitOptions) => context.changes.waitFor(check, waitOptions),
    forceRateLimit(forced) {
      // A misspelt route would never match, and the test would pass without any 429.
      if (!knownRouteNames.has(forced.route)) {
        throw new Error(`fake discord: no route named ${forced.route}; see RestRouteName`);
      }
      context.rateLimiter.force(forced);
    },
    setRateLimits: (limits) => context.rateLimiter.configure(limits),
    setMessageContentIntentEnabled(isEnabled) {
      context.settings.isMessageContentIntentEnabled = isEnabled;
    },
    disconnectGateway: (code) => context.gateway.disconnectAll(code),
    interruptGateway: () => context.gateway.interruptSessions(),
    reset() {
      context.messages.clear();
      context.attachments.clear();
      context.interactions.clear();
      context.commands.clear();
      context.requests.length = 0;
      context.rateLimiter.reset();
      context.invalidRequests.reset();
    },
    async close() {
      context.gateway.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** A token shaped like Discord's: the bot id in base64, a timestamp part and a signature part. */
function defaultToken(botId: string): string {
  const idPart = Buffer.from(botId).toString('base64url');
  return `${idPart}.${randomBytes(4).toString('base64url')}.${randomBytes(27).toString('base64url')}`;
}
