import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.ts';

/**
 * Gives memory back to the system once the process has gone idle after work.
 *
 * V8 grows its young generation (two semi-spaces, up to 32 MiB each here) while parley starts and
 * under load, and keeps those pages while the process idles: 36–41 MiB resident holding under
 * 2 MiB of live objects (issue 24). Capping it (`--max-semi-space-size=8`) kept idle memory down but
 * made every burst pay: six times as many scavenges at 200 replies at once, 15–20 % more CPU per
 * token and first texts later at 500 (docs/benchmarks.md, "Issue 24, third session"). So parley
 * runs with V8's own sizing and, when the event loop has been nearly idle for a whole check
 * interval and the process has grown since the last trim, asks V8 for one memory-reducing full
 * collection (`gc` with `flavor: 'last-resort'`, V8's "collect all available garbage"), which
 * shrinks the young generation and releases the pages it freed. It costs one collection of a
 * heap that is not in use (tens of milliseconds), never while replies are being written.
 *
 * `gc` exists only when node runs with `--expose-gc` (`bin/node-flags.ts`); without it nothing is
 * trimmed and parley runs as before.
 */
export interface IdleMemoryTrim {
  stop(): void;
}

/** What the trim asks V8 for; `globalThis.gc` under `--expose-gc` takes these options. */
export type CollectGarbage = (options: { type: 'major'; flavor: 'last-resort' }) => void;

/** How often the trim looks at the process. */
const defaultCheckIntervalMs = 5_000;
/** The share of a check interval the event loop may be busy and still count as idle. */
const defaultIdleUtilization = 0.02;
/** How much the process must have grown since the last trim (or start) for another to be worth it. */
const defaultGrowthBytes = 16 * 1024 * 1024;

export function startIdleMemoryTrim({
  logger,
  collectGarbage = exposedGarbageCollector(),
  readRssBytes = () => process.memoryUsage.rss(),
  measureUtilization = eventLoopUtilizationSinceLastCheck(),
  checkIntervalMs = defaultCheckIntervalMs,
  idleUtilization = defaultIdleUtilization,
  growthBytes = defaultGrowthBytes,
}: {
  logger: Logger;
  /** undefined when node was started without `--expose-gc`. */
  collectGarbage?: CollectGarbage | undefined;
  readRssBytes?: () => number;
  /** The event loop's busy share (0–1) since the previous call. */
  measureUtilization?: () => number;
  checkIntervalMs?: number;
  idleUtilization?: number;
  growthBytes?: number;
}): IdleMemoryTrim {
  if (collectGarbage === undefined) {
    logger.debug('idle memory trim is off: node was started without --expose-gc (see bin/node-flags.ts)');
    return { stop() {} };
  }
  // Nothing trimmed yet: the growth of start-up counts from zero, so the first idle check trims.
  let trimmedRssBytes = 0;
  const check = () => {
    const utilization = measureUtilization();
    if (utilization > idleUtilization) return;
    const beforeBytes = readRssBytes();
    if (beforeBytes - trimmedRssBytes < growthBytes) return;
    const startedAtMs = performance.now();
    collectGarbage({ type: 'major', flavor: 'last-resort' });
    trimmedRssBytes = readRssBytes();
    logger.debug(
      {
        rssBeforeMiB: toMiB(beforeBytes),
        rssAfterMiB: toMiB(trimmedRssBytes),
        pauseMs: Math.round(performance.now() - startedAtMs),
      },
      'idle: memory given back',
    );
  };
  const timer = setInterval(check, checkIntervalMs);
  // A trim is never a reason to stay alive.
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}

function exposedGarbageCollector(): CollectGarbage | undefined {
  const exposed: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof exposed === 'function' ? (exposed as CollectGarbage) : undefined;
}

function eventLoopUtilizationSinceLastCheck(): () => number {
  let previous = performance.eventLoopUtilization();
  return () => {
    const current = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(current, previous).utilization;
    previous = current;
    return utilization;
  };
}

function toMiB(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
