import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parleyNodeFlags } from '../../bin/node-flags.ts';
import { type CollectGarbage, startIdleMemoryTrim } from '../../src/operations/idle-memory-trim.ts';

const runFile = promisify(execFile);
const mebibyte = 1024 * 1024;
const trimModuleUrl = new URL('../../src/operations/idle-memory-trim.ts', import.meta.url).href;

describe('idle memory trim', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const startWith = ({ utilizations, rssMiB }: { utilizations: number[]; rssMiB: number[] }) => {
    const collections: Parameters<CollectGarbage>[0][] = [];
    const trim = startIdleMemoryTrim({
      logger: pino({ level: 'silent' }),
      collectGarbage: (options) => {
        collections.push(options);
      },
      measureUtilization: () => utilizations.shift() ?? 0,
      readRssBytes: () => (rssMiB.shift() ?? 0) * mebibyte,
      checkIntervalMs: 1_000,
      idleUtilization: 0.02,
      growthBytes: 16 * mebibyte,
    });
    return { trim, collections };
  };

  it('asks for a memory-reducing collection at the first idle check after start, and not while busy', () => {
    // Busy (start-up still registering commands), then idle at 180 MiB, trimmed to 140.
    const { trim, collections } = startWith({ utilizations: [0.4, 0.01], rssMiB: [180, 140] });
    vi.advanceTimersByTime(1_000);
    expect(collections).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(collections).toEqual([{ type: 'major', flavor: 'last-resort' }]);
    trim.stop();
  });

  it('trims again only once the process has grown by the threshold since the last trim', () => {
    // Trim at 180 → 140; idle at 150 (grown 10: no); a burst, then idle at 175 (grown 35: yes).
    const { trim, collections } = startWith({
      utilizations: [0.01, 0.01, 0.9, 0.01],
      rssMiB: [180, 140, 150, 175, 141],
    });
    vi.advanceTimersByTime(2_000);
    expect(collections).toHaveLength(1);
    vi.advanceTimersByTime(2_000);
    expect(collections).toHaveLength(2);
    trim.stop();
    vi.advanceTimersByTime(10_000);
    expect(collections).toHaveLength(2);
  });

  it('does nothing when node was started without --expose-gc', () => {
    const trim = startIdleMemoryTrim({ logger: pino({ level: 'silent' }), collectGarbage: undefined });
    expect(vi.getTimerCount()).toBe(0);
    trim.stop();
  });
});

describe('idle memory trim in a real node process with parley’s flags', () => {
  it('shrinks the young generation that a burst of allocation grew', async () => {
    // The burst grows V8's young generation as start-up and load do; the trim, run on idle, gives it back.
    const script = `
      const { getHeapSpaceStatistics } = await import('node:v8');
      const { startIdleMemoryTrim } = await import(${JSON.stringify(trimModuleUrl)});
      const youngMiB = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576;
      const kept = [];
      for (let index = 0; index < 3e6; index += 1) {
        const object = { index, text: 'reply ' + index, parts: [index, index] };
        if (index % 1000 === 0) kept.push(object);
      }
      const before = youngMiB();
      const logger = { debug() {}, info() {}, warn() {}, error() {} };
      const trim = startIdleMemoryTrim({ logger, checkIntervalMs: 300 });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      trim.stop();
      console.log(JSON.stringify({ before, after: youngMiB(), kept: kept.length }));
    `;
    const { stdout } = await runFile(
      process.execPath,
      [...parleyNodeFlags, '--input-type=module', '--eval', script],
      { timeout: 30_000 },
    );
    const { before, after } = JSON.parse(stdout) as { before: number; after: number };
    expect(before).toBeGreaterThanOrEqual(16);
    expect(after).toBeLessThanOrEqual(2);
  });
});
