import type { Keyv } from 'keyv';
import { z } from 'zod';

/**
 * How long a shard's watermarks stay in the store without being written again. A process down for
 * longer would read, after each, only messages too old to answer (`CatchUpLimits.maxAgeMs`).
 */
export const storedWatermarkTtlMs = 7 * 24 * 60 * 60_000;

/** The newest message seen in a channel where parley is active, as the store keeps it. */
export const storedWatermarkSchema = z.object({
  channelId: z.string().regex(/^\d+$/),
  guildId: z.string().regex(/^\d+$/).nullable(),
  lastMessageId: z.string().regex(/^\d+$/),
  lastActiveAtMs: z.number(),
});

export type StoredWatermark = z.infer<typeof storedWatermarkSchema>;

/** Which shard's watermarks a key holds: those of one bot, one shard, one shard count. */
export interface ShardOfBot {
  readonly botUserId: string;
  readonly shardId: number;
  readonly shardCount: number;
}

/**
 * The shard a channel's events arrive on (events/gateway.mdx, "Sharding": "shard_id = (guild_id >>
 * 22) % num_shards"; "DMs will only be sent to shard 0"). Computed from the id rather than read
 * from the guild cache, so a watermark is filed under its shard before the guild is known.
 */
export function shardOfGuild(guildId: string | null, shardCount: number): number {
  if (guildId === null || shardCount <= 1) return 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/**
 * The catch-up watermarks of one process's shards in the keyv store, one key per shard: every
 * process of a sharded bot writes only the shards it runs, so none overwrites another's. A change
 * of the shard count starts afresh (the old keys expire): a guild's shard changes with it.
 */
export interface StoredWatermarks {
  load(shard: ShardOfBot): Promise<StoredWatermark[]>;
  save(shard: ShardOfBot, watermarks: readonly StoredWatermark[]): Promise<void>;
}

export function createStoredWatermarks({ store }: { store: Keyv }): StoredWatermarks {
  const keyOf = ({ botUserId, shardId, shardCount }: ShardOfBot) =>
    `watermarks:${botUserId}:${shardId}-of-${shardCount}`;
  return {
    async load(shard) {
      const stored: unknown = await store.get(keyOf(shard));
      // Another version's shape, or a damaged entry, is dropped whole: a catch-up is a nicety.
      const parsed = z.array(storedWatermarkSchema).safeParse(stored ?? []);
      return parsed.success ? parsed.data : [];
    },
    async save(shard, watermarks) {
      await store.set(keyOf(shard), watermarks, storedWatermarkTtlMs);
    },
  };
}
