import { randomBytes } from 'node:crypto';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { eventually } from '../discord-observations.ts';
import type { DiscordTurn } from '../discord-turns.ts';
import { type DiscordWorld, startDiscordWorld } from '../discord-world.ts';
import { type ScenarioContext, ScenarioSkipped } from '../scenario.ts';
import type { readHistory } from '../store-observations.ts';
import type { WorldSettings } from '../world.ts';

/** Each store fault damages its bot's store, so each scenario has a world (and a store) of its own. */
export async function ownWorld(
  context: ScenarioContext,
  settings: WorldSettings = {},
): Promise<DiscordWorld> {
  return context.own(await startDiscordWorld({ settings }));
}

export function sqlitePathOf(world: DiscordWorld): string {
  return world.storeUrl.replace(/^sqlite:\/\//, '');
}

export function turnsOf(...turns: DiscordTurn[]) {
  return {
    turns: turns.map((turn) => turn.outcome),
    duplicateReplies: turns.reduce((sum, turn) => sum + turn.duplicates, 0),
  };
}

/** Whether history holds exactly these turns' exchanges, in order. */
export function holdsExactly(
  history: Awaited<ReturnType<typeof readHistory>>,
  turns: readonly DiscordTurn[],
): boolean {
  if (history === undefined || history.length !== turns.length * 2) return false;
  return turns.every(
    (turn, index) =>
      history[index * 2]?.text.includes(turn.marker.marker) === true &&
      history[index * 2 + 1]?.text === turn.marker.replyText,
  );
}

/** What /readyz says now. */
export async function readiness(
  world: Pick<DiscordWorld, 'healthPort'>,
): Promise<{ status: number; body: string }> {
  try {
    const response = await fetch(`http://127.0.0.1:${world.healthPort}/readyz`, {
      signal: AbortSignal.timeout(5_000),
    });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}

export function checkpoint(filePath: string): void {
  const database = new DatabaseSync(filePath);
  try {
    database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    database.close();
  }
}

export function overwriteWithGarbage(path: string): void {
  const descriptor = openSync(path, 'r+');
  try {
    writeSync(descriptor, randomBytes(Math.max(statSync(path).size, 8_192)), 0, undefined, 0);
  } finally {
    closeSync(descriptor);
  }
}

/** Seconds from `startedAtMs` until the person saw a warning; Infinity when none came. */
export function secondsUntilWarning(turn: DiscordTurn, startedAtMs: number): number {
  const warnedAtMs = turn.shown.firstWarningAtMs;
  return warnedAtMs === undefined
    ? Number.POSITIVE_INFINITY
    : Math.round(((warnedAtMs - startedAtMs) / 1000) * 10) / 10;
}

export function requireRedis(context: ScenarioContext): string {
  if (context.redisUrl === undefined) throw new ScenarioSkipped('REDIS_URL is not set');
  return context.redisUrl;
}

export async function stopBot(world: DiscordWorld): Promise<void> {
  world.bot.kill('SIGTERM');
  await world.bot.exited;
}

/** The bytes of every value the store holds, read past parley on a read-only connection of our own. */
export function storedBytes(filePath: string): number {
  const database = new DatabaseSync(filePath, { readOnly: true });
  try {
    const row = database.prepare('SELECT COALESCE(SUM(LENGTH(value)), 0) AS bytes FROM entries').get();
    return Number(row?.bytes ?? 0);
  } finally {
    database.close();
  }
}

/** Runs a slash command and resolves with what its answer says, or '' when none came within 20 s. */
export async function runSlashCommand({
  world,
  channelId,
  name,
}: {
  world: DiscordWorld;
  channelId: string;
  name: string;
}): Promise<string> {
  const interactionId = world.discord.sendSlashCommand({ name, channelId });
  const answer = () => {
    const originalId = world.discord.interaction(interactionId)?.originalMessageId;
    const original = originalId ? world.discord.message(originalId) : undefined;
    return original !== undefined && original.content !== '' ? original.content : undefined;
  };
  await eventually({ isDone: () => answer() !== undefined, timeoutMs: 20_000 });
  return answer() ?? '';
}
