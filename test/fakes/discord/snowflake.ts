/** The first second of 2015 UTC, the zero of Discord's snowflake timestamps. */
export const discordEpochMs = 1_420_070_400_000;

/** Hands out unique, increasing Discord-style snowflake ids. */
export interface SnowflakeGenerator {
  next(): string;
}

/**
 * Creates a generator of snowflakes: milliseconds since the Discord epoch shifted left by 22 bits.
 * Ids made now have 19 digits, which @discordjs/rest needs to recognise them as ids when it builds
 * its rate-limit buckets. Many ids in the same millisecond simply count up, so they stay unique and
 * ordered by creation, the way message ids are.
 */
export function createSnowflakeGenerator(): SnowflakeGenerator {
  let last = 0n;
  return {
    next() {
      const fromClock = BigInt(Date.now() - discordEpochMs) << 22n;
      last = fromClock > last ? fromClock : last + 1n;
      return last.toString();
    },
  };
}

/** The creation time encoded in a snowflake, in epoch milliseconds. */
export function snowflakeTimestampMs(id: string): number {
  return Number(BigInt(id) >> 22n) + discordEpochMs;
}
