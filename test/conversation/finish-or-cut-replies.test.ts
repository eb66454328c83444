import { describe, expect, it } from 'vitest';
import { createActiveReplies } from '../../src/conversation/active-replies.ts';
import { finishOrCutReplies } from '../../src/conversation/finish-or-cut-replies.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

/** A reply that streams for `durationMs` unless its signal stops it first. */
function streamReply(activeReplies: ReturnType<typeof createActiveReplies>, id: string, durationMs: number) {
  const signal = activeReplies.start(id, { askerId: 'ada', conversationKey: 'test:w:c' });
  return new Promise<'finished' | 'cut'>((resolve) => {
    const timer = setTimeout(() => resolve('finished'), durationMs);
    const stop = () => {
      clearTimeout(timer);
      resolve('cut');
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop);
  }).finally(() => activeReplies.finish(id));
}

/** The engine's part that shutdown uses: a lock whose tasks it can wait for. */
function createEngineLike() {
  const lock = createInProcessLock();
  let pending = 0;
  const idle: Array<() => void> = [];
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      pending += 1;
      return lock.run(key, task).finally(() => {
        pending -= 1;
        if (pending === 0) for (const resolve of idle.splice(0)) resolve();
      });
    },
    whenIdle: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
  };
}

describe('finishOrCutReplies', () => {
  it('lets a reply and the turn queued behind it finish when they fit in the time to finish', async () => {
    const activeReplies = createActiveReplies();
    const engine = createEngineLike();
    const first = engine.run('channel', () => streamReply(activeReplies, 'a', 50));
    const queued = engine.run('channel', () => streamReply(activeReplies, 'b', 50));
    await finishOrCutReplies({ engine, activeReplies, finishWithinMs: 2_000, cutWithinMs: 500 });
    expect(await Promise.all([first, queued])).toEqual(['finished', 'finished']);
  });

  it('cuts what is still running after the time to finish, and the turns that start later at once', async () => {
    const activeReplies = createActiveReplies();
    const engine = createEngineLike();
    const startedAtMs = Date.now();
    const long = engine.run('channel', () => streamReply(activeReplies, 'a', 60_000));
    const queued = engine.run('channel', () => streamReply(activeReplies, 'b', 60_000));
    await finishOrCutReplies({ engine, activeReplies, finishWithinMs: 100, cutWithinMs: 500 });
    expect(await Promise.all([long, queued])).toEqual(['cut', 'cut']);
    expect(Date.now() - startedAtMs).toBeLessThan(2_000);
  });
});
