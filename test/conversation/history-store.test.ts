import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import type { StoredTurn } from '../../src/conversation/turn.ts';
import { createStore } from '../../src/state/create-store.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

const { logger } = createCapturedLogger();
const stores: Array<{ disconnect(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.disconnect()));
});

function turn(text: string, role: 'user' | 'assistant' = 'user'): StoredTurn {
  return { role, authorId: role, authorName: role, text, images: [], createdAt: new Date(0).toISOString() };
}

const storeUrls = [
  ['memory', () => 'memory://'],
  ['sqlite', () => `sqlite://${join(mkdtempSync(join(tmpdir(), 'parley-history-')), 'h.sqlite')}`],
] as const;

describe.each(storeUrls)('history store on %s', (_name, storeUrl) => {
  const open = (url: string, maxTurns = 5) => {
    const store = createStore({ storeUrl: url, namespace: 'history', logger });
    stores.push(store);
    return { store, history: createHistoryStore({ store, maxTurns, logger }) };
  };

  it('appends, keeps the newest maxTurns, and replaces the last turns', async () => {
    const { history } = open(storeUrl());
    await history.append('c', [turn('1'), turn('2', 'assistant')]);
    await history.append('c', [turn('3'), turn('4', 'assistant')]);
    await history.append('c', [turn('5'), turn('6', 'assistant')]);
    expect((await history.load('c')).map((entry) => entry.text)).toEqual(['2', '3', '4', '5', '6']);
    await history.append('c', [turn('5b'), turn('6b', 'assistant')], { replacingLast: 2 });
    expect((await history.load('c')).map((entry) => entry.text)).toEqual(['2', '3', '4', '5b', '6b']);
    await history.reset('c');
    expect(await history.load('c')).toEqual([]);
    await history.append('c', [turn('again')]);
    expect((await history.load('c')).map((entry) => entry.text)).toEqual(['again']);
  });

  it('keeps conversations apart', async () => {
    const { history } = open(storeUrl());
    await history.append('a', [turn('for a')]);
    await history.append('b', [turn('for b')]);
    expect((await history.load('a')).map((entry) => entry.text)).toEqual(['for a']);
    expect((await history.load('b')).map((entry) => entry.text)).toEqual(['for b']);
  });
});

describe('history shared by two processes (two stores on one file)', () => {
  it('sees what the other wrote, even after its own cached copy', async () => {
    const url = storeUrls[1][1]();
    const first = createStore({ storeUrl: url, namespace: 'history', logger });
    const second = createStore({ storeUrl: url, namespace: 'history', logger });
    stores.push(first, second);
    const one = createHistoryStore({ store: first, maxTurns: 10, logger });
    const two = createHistoryStore({ store: second, maxTurns: 10, logger });
    await one.append('c', [turn('from one')]);
    expect((await two.load('c')).map((entry) => entry.text)).toEqual(['from one']);
    await two.append('c', [turn('regenerated')], { replacingLast: 1 });
    expect((await one.load('c')).map((entry) => entry.text)).toEqual(['regenerated']);
    await two.reset('c');
    await two.append('c', [turn('fresh start')]);
    expect((await one.load('c')).map((entry) => entry.text)).toEqual(['fresh start']);
  });
});
