import type { ConversationSummary } from './conversation-summaries.ts';
import type { StoredTurn } from './turn.ts';

const dayMs = 24 * 60 * 60_000;

/**
 * What of a conversation's history is still within HISTORY_RETENTION_DAYS at `nowMs`: the retention
 * sweep removes older turns only once an hour, so a read between two sweeps drops them itself, and
 * nothing past the retention reaches the model (issue 34, item 11). The summary goes by the sweep's
 * own rule: kept while its newest summarised turn is within the retention. `retentionDays` null or
 * undefined: no time limit. Pure, on what the turn already read: no extra store read on the hot path.
 */
export function unexpiredHistory({
  turns,
  summary,
  retentionDays,
  nowMs,
}: {
  turns: readonly StoredTurn[];
  summary: ConversationSummary | undefined;
  retentionDays: number | null | undefined;
  nowMs: number;
}): { turns: StoredTurn[]; summary: ConversationSummary | undefined } {
  const cutoffMs = retentionCutoffMs({ retentionDays, nowMs });
  if (cutoffMs === undefined) return { turns: [...turns], summary };
  return {
    turns: turns.filter((turn) => !isExpired(turn.createdAt, cutoffMs)),
    summary: summary !== undefined && isExpired(summary.coversThrough, cutoffMs) ? undefined : summary,
  };
}

/** The time before which what was said is past its retention; undefined: no time limit. */
export function retentionCutoffMs({
  retentionDays,
  nowMs,
}: {
  retentionDays: number | null | undefined;
  nowMs: number;
}): number | undefined {
  return typeof retentionDays === 'number' && retentionDays >= 1 ? nowMs - retentionDays * dayMs : undefined;
}

function isExpired(createdAt: string, cutoffMs: number): boolean {
  return Date.parse(createdAt) < cutoffMs;
}
