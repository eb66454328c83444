import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createHistoryStore } from '../src/conversation/history-store.ts';
import type { StoredTurn } from '../src/conversation/turn.ts';
import { createStore } from '../src/state/create-store.ts';
import { loadProfile, replyTextOf } from './load-profile.ts';
import { type LatencySummary, summarize } from './statistics.ts';

/** What one turn costs the default store in a long conversation. */
export interface HistoryFigures {
  storeKind: 'sqlite';
  turnsInConversation: number;
  iterations: number;
  /** `load` then `append` of one turn, as the engine does for each reply. */
  loadAndAppendMs: LatencySummary;
  loadMs: LatencySummary;
  appendMs: LatencySummary;
  /**
   * A load by a process that has not seen the conversation yet (just started, or another process
   * wrote last): every turn read from the store and checked.
   */
  coldLoadMs: LatencySummary;
  /** The stored conversation's size as JSON, which every load parses and every append writes. */
  storedKibibytes: number;
}

const turnsInConversation = 200;
const warmUpIterations = 20;

/**
 * Measures, in this process, loading a 200-turn conversation from the default store (an SQLite file)
 * and appending one turn to it. History is capped at 200 turns (HISTORY_MAX_TURNS' default), so the
 * conversation stays at 200 turns throughout, the steady state of a long-lived channel.
 */
export async function measureHistory({ iterations }: { iterations: number }): Promise<HistoryFigures> {
  const directory = mkdtempSync(join(tmpdir(), 'parley-bench-history-'));
  const logger = pino({ level: 'silent' });
  const store = createStore({
    storeUrl: `sqlite://${join(directory, 'parley.sqlite')}`,
    namespace: 'history',
    logger,
  });
  const history = createHistoryStore({ store, maxTurns: turnsInConversation, logger });
  const key = 'discord:100000000000000001:100000000000000002';
  try {
    await history.append(
      key,
      Array.from({ length: turnsInConversation }, (_, index) => turnOf(index)),
    );
    const totals: number[] = [];
    const loads: number[] = [];
    const appends: number[] = [];
    const coldLoads: number[] = [];
    for (let iteration = 0; iteration < warmUpIterations + iterations; iteration += 1) {
      const startedAtMs = performance.now();
      await history.load(key);
      const loadedAtMs = performance.now();
      await history.append(key, [turnOf(turnsInConversation + iteration)]);
      const endedAtMs = performance.now();
      const freshHistory = createHistoryStore({ store, maxTurns: turnsInConversation, logger });
      const coldStartedAtMs = performance.now();
      await freshHistory.load(key);
      const coldEndedAtMs = performance.now();
      if (iteration < warmUpIterations) continue;
      totals.push(endedAtMs - startedAtMs);
      loads.push(loadedAtMs - startedAtMs);
      appends.push(endedAtMs - loadedAtMs);
      coldLoads.push(coldEndedAtMs - coldStartedAtMs);
    }
    const stored = await history.load(key);
    return {
      storeKind: 'sqlite',
      turnsInConversation: stored.length,
      iterations,
      loadAndAppendMs: summarize(totals),
      loadMs: summarize(loads),
      appendMs: summarize(appends),
      coldLoadMs: summarize(coldLoads),
      storedKibibytes: Buffer.byteLength(JSON.stringify(stored)) / 1024,
    };
  } finally {
    await store.disconnect();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Turns alternate between a person's short question and a bench-sized answer with its usage. */
function turnOf(index: number): StoredTurn {
  const createdAt = new Date(Date.UTC(2025, 0, 1) + index * 60_000).toISOString();
  if (index % 2 === 0) {
    return {
      role: 'user',
      authorId: '100000000000000003',
      authorName: 'Alice',
      text: `Question ${index}: how do rate limits shape a chat bot that streams its replies?`,
      images: [],
      createdAt,
    };
  }
  return {
    role: 'assistant',
    authorId: '100000000000000004',
    authorName: 'parley',
    text: replyTextOf(index),
    images: [],
    model: 'bench-model',
    usage: { promptTokens: 4_000, completionTokens: loadProfile.tokensPerReply, totalTokens: 4_300 },
    createdAt,
  };
}
