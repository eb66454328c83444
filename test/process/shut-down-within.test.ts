import { describe, expect, it } from 'vitest';
import { shutDownWithin } from '../../src/shut-down.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

describe('shutDownWithin', () => {
  it('runs every step in order and does not force anything when they finish in time', async () => {
    const { logger } = createCapturedLogger([]);
    const order: string[] = [];
    const exits: number[] = [];
    await shutDownWithin({
      graceMs: 1_000,
      steps: [async () => order.push('stop platforms'), async () => order.push('close stores')],
      logger,
      forceExit: (code) => exits.push(code),
    });
    expect(order).toEqual(['stop platforms', 'close stores']);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(exits).toEqual([]);
  });

  it('forces the exit with code 1, saying why, when a step hangs past the grace', async () => {
    const { logger, output } = createCapturedLogger([]);
    const exits: number[] = [];
    void shutDownWithin({
      graceMs: 200,
      steps: [() => new Promise(() => undefined)],
      logger,
      forceExit: (code) => exits.push(code),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(exits).toEqual([1]);
    expect(output()).toContain('shutdown did not finish within SHUTDOWN_GRACE_MS; forcing the exit');
  });
});
