/** `[shard_id, num_shards]` as sent in IDENTIFY. */
export type ShardPair = readonly [shardId: number, shardCount: number];

/**
 * Reads the `shard` of an IDENTIFY: absent means one connection for everything; anything but two
 * integers with 0 <= shard_id < num_shards is invalid (events/gateway.mdx, "Sharding": "The first
 * item in this array should be the zero-based integer value of the current shard, while the second
 * represents the total number of shards"; close code 4010 "Invalid shard",
 * topics/opcodes-and-status-codes.mdx).
 */
export function readShard(value: unknown): { shard: ShardPair | undefined } | 'invalid' {
  if (value === undefined || value === null) return { shard: undefined };
  if (!Array.isArray(value) || value.length !== 2) return 'invalid';
  const [shardId, shardCount] = value as unknown[];
  if (!Number.isInteger(shardId) || !Number.isInteger(shardCount)) return 'invalid';
  if (
    (shardCount as number) < 1 ||
    (shardId as number) < 0 ||
    (shardId as number) >= (shardCount as number)
  ) {
    return 'invalid';
  }
  return { shard: [shardId as number, shardCount as number] };
}

/**
 * Whether a session on `shard` gets the events of `guildId`. events/gateway.mdx, "Sharding Formula":
 * `shard_id = (guild_id >> 22) % num_shards`; "Gateway events that do not contain a guild_id will
 * only be sent to the first shard (shard_id: 0)", DMs included.
 */
export function shardReceives(shard: ShardPair | undefined, guildId: string | undefined): boolean {
  if (shard === undefined) return true;
  const [shardId, shardCount] = shard;
  if (guildId === undefined) return shardId === 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount)) === shardId;
}

/** Events whose `d` is a guild object, so the guild is its `id`. */
const guildObjectEvents = new Set(['GUILD_CREATE', 'GUILD_UPDATE', 'GUILD_DELETE']);

/** The guild an event belongs to, or undefined for a DM or an app-wide event. */
export function guildIdOfEvent(eventName: string, data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const guildId = guildObjectEvents.has(eventName)
    ? (data as { id?: unknown }).id
    : (data as { guild_id?: unknown }).guild_id;
  return typeof guildId === 'string' ? guildId : undefined;
}
