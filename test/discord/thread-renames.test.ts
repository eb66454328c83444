import { describe, expect, it } from 'vitest';
import { createThreadRenames, threadRenameBudget } from '../../adapters/discord/thread-renames.ts';

function fakeThread(id: string) {
  const thread = {
    id,
    name: 'start',
    names: [] as string[],
    async setName(name: string) {
      thread.name = name;
      thread.names.push(name);
      return thread as never;
    },
  };
  return thread;
}

describe('thread renames within Discord’s two per ten minutes', () => {
  it('renames twice, refuses the third until the oldest rename leaves the window, per thread', async () => {
    let nowMs = 1_000_000;
    const renames = createThreadRenames({ now: () => nowMs });
    const thread = fakeThread('1');
    expect(await renames.rename(thread, 'one')).toEqual({ status: 'renamed', name: 'one' });
    nowMs += 60_000;
    expect(await renames.rename(thread, 'two')).toEqual({ status: 'renamed', name: 'two' });
    expect(await renames.rename(thread, 'three')).toEqual({
      status: 'limited',
      retryAtMs: 1_000_000 + threadRenameBudget.windowMs,
    });
    // The same name is no rename at all, and another thread has its own budget.
    expect(await renames.rename(thread, 'two')).toEqual({ status: 'unchanged', name: 'two' });
    expect((await renames.rename(fakeThread('2'), 'other')).status).toBe('renamed');

    nowMs = 1_000_000 + threadRenameBudget.windowMs;
    expect(renames.remaining('1')).toBe(1);
    expect(await renames.rename(thread, 'three')).toEqual({ status: 'renamed', name: 'three' });
    expect(thread.names).toEqual(['one', 'two', 'three']);
  });
});
