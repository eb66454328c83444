import type { Client, Message } from 'discord.js';
import type { Logger } from '../../src/log.ts';
import type { DiscordOutbound } from './discord-outbound.ts';
import { sentAtMicrosOf } from './message-turn.ts';
import {
  type ShardOfBot,
  type StoredWatermark,
  type StoredWatermarks,
  shardOfGuild,
} from './stored-watermarks.ts';

/**
 * How often changed watermarks are written to the store: a write per received message would cost
 * more than the catch-up is worth. A process killed between writes catches up from a few seconds
 * earlier; what it reads again was answered (a reply that references it) or is deduplicated.
 */
export const watermarkFlushIntervalMs = 5_000;

/**
 * How far a catch-up reads after a fresh identify. Discord replays what a session missed only when
 * it resumes (events/gateway.mdx, "Resuming"); a client that has to identify afresh never receives
 * the messages sent in the gap, so parley reads them itself, within these bounds.
 */
export interface CatchUpLimits {
  /** The most channels read in one catch-up, the most recently active first. */
  readonly channels: number;
  /** The most messages read in one channel: one page (Discord gives at most 100 a request). */
  readonly messagesPerChannel: number;
  /** The most messages read in all. */
  readonly messages: number;
  /** Older messages are left: a question that waited this long was asked again, or elsewhere. */
  readonly maxAgeMs: number;
  /** The most channels remembered; the least recently active are forgotten first. */
  readonly rememberedChannels: number;
}

export const discordCatchUpLimits: CatchUpLimits = {
  channels: 25,
  messagesPerChannel: 50,
  messages: 200,
  maxAgeMs: 60 * 60_000,
  rememberedChannels: 500,
};

/** The newest message seen in a channel where parley is active. */
interface Watermark {
  readonly guildId: string | null;
  lastMessageId: string;
  lastActiveAtMs: number;
}

export interface MissedMessages {
  /** parley answers (or was asked) in this message's channel: its newest message is remembered from now on. */
  noteActive(message: Pick<Message, 'id' | 'channelId' | 'guildId'>): void;
  /** Every message the client receives: an active channel's newest id moves forward. */
  noteSeen(message: Pick<Message, 'id' | 'channelId'>): void;
  /**
   * After `shardId` identified afresh: reads what came after the newest message seen in each of
   * its active channels, and hands the mentions and DMs nobody answered to `answer`, oldest first,
   * each once. Reads wait in the outbound queue behind every reply's call, and go while the bot's
   * budget is quiet. The first READY of a shard in this process also takes the watermarks the
   * processes before it stored, so what was asked while parley was down is answered too.
   */
  catchUp(options: {
    client: Client;
    shardId: number;
    answer: (message: Message) => void;
  }): Promise<CatchUpReport>;
  /** Writes what changed since the last write and stops writing: at shutdown. */
  close(): Promise<void>;
}

export interface CatchUpReport {
  readonly channelsRead: number;
  readonly messagesRead: number;
  readonly handedOn: number;
  /** Channels or messages left out by the bounds. */
  readonly isCut: boolean;
}

export function createMissedMessages({
  outbound,
  logger,
  limits = discordCatchUpLimits,
  now = Date.now,
  stored,
  flushIntervalMs = watermarkFlushIntervalMs,
}: {
  outbound: DiscordOutbound;
  logger: Logger;
  limits?: CatchUpLimits;
  now?: () => number;
  /** Where watermarks outlive the process; undefined: memory only. */
  stored?: StoredWatermarks;
  flushIntervalMs?: number;
}): MissedMessages {
  const watermarks = new Map<string, Watermark>();
  // The shards whose stored watermarks were taken in: only those are written back, so a shard not
  // yet ready never overwrites what an earlier process stored for it.
  const loadedShards = new Map<number, ShardOfBot>();
  let isDirty = false;
  let flushTimer: NodeJS.Timeout | undefined;

  const moveForward = (channelId: string, messageId: string) => {
    const watermark = watermarks.get(channelId);
    if (watermark && BigInt(messageId) > BigInt(watermark.lastMessageId)) {
      watermark.lastMessageId = messageId;
      isDirty = true;
    }
  };

  const forgetLeastActive = () => {
    while (watermarks.size > limits.rememberedChannels) {
      const leastActive = [...watermarks.entries()].sort(
        ([, first], [, second]) => first.lastActiveAtMs - second.lastActiveAtMs,
      )[0];
      if (!leastActive) return;
      watermarks.delete(leastActive[0]);
    }
  };

  const flush = async () => {
    if (!stored || !isDirty) return;
    isDirty = false;
    for (const shard of loadedShards.values()) {
      const ofShard: StoredWatermark[] = [...watermarks.entries()]
        .filter(([, watermark]) => shardOfGuild(watermark.guildId, shard.shardCount) === shard.shardId)
        .map(([channelId, watermark]) => ({ channelId, ...watermark }));
      try {
        await stored.save(shard, ofShard);
      } catch (error) {
        isDirty = true;
        logger.warn({ err: error, shardId: shard.shardId }, 'could not store the catch-up watermarks');
      }
    }
  };

  /** Takes in what earlier processes stored for the shard, once per shard and process. */
  const loadShard = async (client: Client, shardId: number) => {
    const botUserId = client.user?.id;
    if (!stored || !botUserId || loadedShards.has(shardId)) return;
    const shard = { botUserId, shardId, shardCount: shardCountOf(client) };
    const earlier = await stored.load(shard).catch((error: unknown) => {
      logger.warn({ err: error, shardId }, 'could not read the stored catch-up watermarks');
      return [];
    });
    loadedShards.set(shardId, shard);
    for (const { channelId, ...watermark } of earlier) {
      const current = watermarks.get(channelId);
      if (!current) {
        watermarks.set(channelId, { ...watermark });
        continue;
      }
      // A message seen since the READY must not hide the gap before it: the older mark wins.
      if (BigInt(watermark.lastMessageId) < BigInt(current.lastMessageId)) {
        current.lastMessageId = watermark.lastMessageId;
      }
      current.lastActiveAtMs = Math.max(current.lastActiveAtMs, watermark.lastActiveAtMs);
    }
    forgetLeastActive();
    isDirty = true;
    if (!flushTimer) {
      flushTimer = setInterval(() => void flush(), flushIntervalMs);
      // The writes never keep a process alive that has nothing else to do.
      flushTimer.unref();
    }
  };

  return {
    noteActive(message) {
      const existing = watermarks.get(message.channelId);
      if (existing) {
        existing.lastActiveAtMs = now();
        moveForward(message.channelId, message.id);
        return;
      }
      watermarks.set(message.channelId, {
        guildId: message.guildId,
        lastMessageId: message.id,
        lastActiveAtMs: now(),
      });
      isDirty = true;
      forgetLeastActive();
    },
    noteSeen(message) {
      moveForward(message.channelId, message.id);
    },
    async catchUp({ client, shardId, answer }) {
      const botUserId = client.user?.id;
      if (!botUserId) return { channelsRead: 0, messagesRead: 0, handedOn: 0, isCut: false };
      await loadShard(client, shardId);
      // Each shard catches up on its own channels, those whose events it receives.
      const candidates = [...watermarks.entries()]
        .filter(([, watermark]) => shardOfGuild(watermark.guildId, shardCountOf(client)) === shardId)
        .sort(([, first], [, second]) => second.lastActiveAtMs - first.lastActiveAtMs);
      let isCut = candidates.length > limits.channels;
      const read: Message[] = [];
      let channelsRead = 0;
      for (const [channelId, watermark] of candidates.slice(0, limits.channels)) {
        const room = Math.min(limits.messagesPerChannel, limits.messages - read.length);
        if (room <= 0) {
          isCut = true;
          break;
        }
        const page = await readAfter({
          client,
          outbound,
          channelId,
          after: watermark.lastMessageId,
          limit: room,
        }).catch((error: unknown) => {
          logger.info({ err: error, channelId }, 'could not read a channel to catch up');
          return undefined;
        });
        if (page === undefined) continue;
        channelsRead += 1;
        if (page.length >= room) isCut = true;
        for (const message of page) moveForward(channelId, message.id);
        read.push(...page);
      }
      // Answered: a reply of parley's points to it, or (thread mode) parley opened a thread from it.
      const answeredIds = new Set([
        ...read
          .filter((message) => message.author.id === botUserId)
          .flatMap((message) => (message.reference?.messageId ? [message.reference.messageId] : [])),
        ...read.filter((message) => message.thread?.ownerId === botUserId).map((message) => message.id),
      ]);
      const oldestKeptMicros = (now() - limits.maxAgeMs) * 1000;
      const owed = read
        .filter(
          (message) =>
            !message.author.bot &&
            !message.system &&
            !answeredIds.has(message.id) &&
            sentAtMicrosOf(message.id) >= oldestKeptMicros &&
            (message.guildId === null || message.mentions.users.has(botUserId)),
        )
        .sort((first, second) => (BigInt(first.id) < BigInt(second.id) ? -1 : 1));
      for (const message of owed) answer(message);
      const report = { channelsRead, messagesRead: read.length, handedOn: owed.length, isCut };
      logger.info({ shardId, ...report }, 'caught up on messages sent while disconnected');
      return report;
    },
    async close() {
      clearInterval(flushTimer);
      flushTimer = undefined;
      await flush();
    },
  };
}

/** The whole bot's shard count, which discord.js knows once connected (1: not sharded). */
function shardCountOf(client: Client): number {
  return typeof client.options.shardCount === 'number' ? client.options.shardCount : 1;
}

/** One page of a channel's messages after `after`, oldest first, read when the bot's budget is quiet. */
async function readAfter({
  client,
  outbound,
  channelId,
  after,
  limit,
}: {
  client: Client;
  outbound: DiscordOutbound;
  channelId: string;
  after: string;
  limit: number;
}): Promise<Message[] | undefined> {
  const channel = await client.channels.fetch(channelId).catch(() => null);
  if (!channel?.isTextBased() || !('messages' in channel)) return undefined;
  // A background read: the lowest priority, and the typing gate's share of the budget, so no
  // reply's post or edit ever waits for it.
  const page = await outbound.schedule({
    priority: 'cosmetic',
    target: { kind: 'typing', channelId },
    run: () => channel.messages.fetch({ after, limit }),
  });
  return [...page.values()].sort((first, second) => (BigInt(first.id) < BigInt(second.id) ? -1 : 1));
}
