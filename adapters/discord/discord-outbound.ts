import type { REST } from 'discord.js';
import { createOutboundQueue, type OutboundQueue } from '../../src/delivery/outbound-queue.ts';
import {
  type BucketClaim,
  createQuietGate,
  createSlidingWindow,
  type RateLimit,
  type SlidingWindow,
} from '../../src/delivery/rate-limits.ts';
import { countedRequests } from './counted-requests.ts';
import { discordLimits } from './discord-limits.ts';
import { createRepliesAwaitingText, type RepliesAwaitingText } from './replies-awaiting-text.ts';

/** What a Discord call is, as far as its rate limits go. */
export interface DiscordCallTarget {
  /** `create` and `edit` count in the channel's own buckets; `typing` is a courtesy. */
  readonly kind: 'create' | 'edit' | 'typing';
  readonly channelId: string;
  /**
   * An edit that is not a message's last: it leaves the channel's last edit slot to a final edit
   * (see `finalEditReserve`).
   */
  readonly isInBetween?: boolean;
}

/** Each kind of call as Discord's API reference names its route (resources/message.mdx, resources/channel.mdx). */
const discordRoutes: Record<DiscordCallTarget['kind'], string> = {
  create: 'POST /channels/{channel.id}/messages',
  edit: 'PATCH /channels/{channel.id}/messages/{message.id}',
  typing: 'POST /channels/{channel.id}/typing',
};

/** The bot's one outbound queue on Discord; every channel surface of the bot shares it. */
export interface DiscordOutbound extends OutboundQueue<DiscordCallTarget> {
  /**
   * How long until an in-between edit in the channel finds a slot without taking the one kept for
   * a final edit: 0 when it could go now, at most one window.
   */
  inBetweenEditWaitMs(channelId: string): number;
  /**
   * A reply began and has no text on screen yet; call what this returns once its first text is
   * posted. While many replies wait so, typing waits too (see `RepliesAwaitingText`).
   */
  awaitFirstText(): () => void;
}

/**
 * Edit slots of a channel window that in-between edits leave free, so that a reply's final text
 * never waits for the window to pass: at N=1 a reply edits once a second, and without it the
 * sixth edit in five seconds (the final one) waited for the first to leave the window.
 */
export const finalEditReserve = 1;

/**
 * Discord's limits as data (topics/rate-limits.mdx): 50 requests a second for the whole bot token,
 * and each channel's message creates and edits in buckets of their own (about 5 per 5 s; the real
 * sizes are learned from `X-RateLimit-*`, see `learnBucketSizes`). Typing goes only while the
 * bot's window is used below a quarter, counting the replies about to post their first text as if
 * they had, so that neither renewing the indicators of many waiting replies nor greeting a burst of
 * mentions takes the budget the text right behind them needs.
 */
export interface DiscordRateLimits {
  readonly bot: SlidingWindow;
  readonly channel: SlidingWindow;
  readonly typing: RateLimit;
  readonly awaitingText: RepliesAwaitingText;
}

export function createDiscordRateLimits(): DiscordRateLimits {
  const bot = createSlidingWindow({ limit: discordLimits.schedulerRequestsPerSecond, windowMs: 1_000 });
  const awaitingText = createRepliesAwaitingText();
  return {
    bot,
    awaitingText,
    channel: createSlidingWindow({
      limit: discordLimits.editsPerWindow,
      windowMs: discordLimits.editWindowMs + discordLimits.bucketMarginMs,
    }),
    typing: createQuietGate({
      window: bot,
      key: 'bot',
      limit: discordLimits.schedulerRequestsPerSecond,
      fraction: discordLimits.typingShareOfBudget,
      alsoComing: (nowMs) => awaitingText.count(nowMs),
    }),
  };
}

/** The bot token's budget as every process of the bot counts it (Redis), under this key. */
export interface SharedBotBudget {
  readonly limit: RateLimit;
  readonly key: string;
}

/**
 * The queue. With several processes, `sharedBudget` joins every call's claims, so a process sees the
 * others' load before it grants an edit (rather than granting it and then waiting under discord.js
 * while its text goes stale); the requests of a granted call are marked as counted, so the gate under
 * discord.js's REST does not take a second slot for them.
 */
export function createDiscordOutbound(
  limits: DiscordRateLimits = createDiscordRateLimits(),
  sharedBudget?: SharedBotBudget,
): DiscordOutbound {
  const shared: BucketClaim[] = sharedBudget ? [sharedBudget] : [];
  const inBetweenEdits = limits.channel.keepingSpare(finalEditReserve);
  const queue = createOutboundQueue<DiscordCallTarget>({
    routeOf: (target) => discordRoutes[target.kind],
    // The typing gate is asked before the bot's window, so it sees the window without this call; the
    // shared budget, a Redis round trip, is asked last, once the process's own limits have room.
    bucketsFor: (target): BucketClaim[] =>
      target.kind === 'typing'
        ? [{ limit: limits.typing, key: 'bot' }, { limit: limits.bot, key: 'bot' }, ...shared]
        : [
            { limit: limits.bot, key: 'bot' },
            {
              limit: target.isInBetween === true ? inBetweenEdits : limits.channel,
              key: channelBucketKey(target.kind, target.channelId),
            },
            ...shared,
          ],
  });
  // While every slot is in flight, a response frees one; a window from now is the longest that takes.
  const inBetweenEditWaitMs = (channelId: string) => {
    const nowMs = Date.now();
    const roomAtMs = limits.channel.spareRoomAtMs(
      channelBucketKey('edit', channelId),
      nowMs,
      finalEditReserve,
    );
    return Math.min(Math.max(0, roomAtMs - nowMs), discordLimits.editWindowMs);
  };
  const awaitFirstText = () => limits.awaitingText.begin(Date.now());
  if (sharedBudget === undefined) return { ...queue, inBetweenEditWaitMs, awaitFirstText };
  return {
    ...queue,
    inBetweenEditWaitMs,
    awaitFirstText,
    schedule: (call) => queue.schedule({ ...call, run: () => countedRequests.run(true, call.run) }),
    tryNow: (call) => queue.tryNow({ ...call, run: () => countedRequests.run(true, call.run) }),
  };
}

export function channelBucketKey(kind: 'create' | 'edit', channelId: string): string {
  return `${kind}:${channelId}`;
}

/** The group whose replies share a channel's edit bucket fairly (see `fairIntervalMs`). */
export function channelEditGroup(channelId: string): string {
  return `edit:${channelId}`;
}

const channelMessagesPath = /^\/channels\/(\d+)\/messages(\/\d+)?$/;

/**
 * Reads Discord's `X-RateLimit-Limit` and `X-RateLimit-Reset-After` of every message create and edit
 * (topics/rate-limits.mdx, "Header Format"), so a channel's bucket is as large as Discord says. A
 * fresh window's first answer (`remaining` one below `limit`) shows the window's whole length.
 */
export function learnBucketSizes({ rest, limits }: { rest: REST; limits: DiscordRateLimits }): void {
  rest.on('response', (request, response) => {
    const match = channelMessagesPath.exec(String(request.path));
    const channelId = match?.[1];
    if (channelId === undefined) return;
    const kind = request.method === 'POST' && match?.[2] === undefined ? 'create' : 'edit';
    if (kind === 'edit' && request.method !== 'PATCH') return;
    const limit = Number(response.headers.get('x-ratelimit-limit'));
    const remaining = Number(response.headers.get('x-ratelimit-remaining'));
    const resetAfterSeconds = Number(response.headers.get('x-ratelimit-reset-after'));
    if (!Number.isInteger(limit) || limit < 1 || remaining !== limit - 1) return;
    if (!Number.isFinite(resetAfterSeconds) || resetAfterSeconds <= 0) return;
    limits.channel.learn(channelBucketKey(kind, channelId), {
      limit,
      windowMs: Math.ceil(resetAfterSeconds * 1_000) + discordLimits.bucketMarginMs,
    });
  });
}
