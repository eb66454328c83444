import type { Actor } from '../access/actor.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import type { Logger } from '../log.ts';
import type { SpendGuard } from '../spending/spend-guard.ts';
import { estimateTokens, promptBudgetTokens, toChatMessage } from './context-budget.ts';
import type { ConversationSummaries, ConversationSummary, SummaryAuthor } from './conversation-summaries.ts';
import { foldIntoSummary } from './fold-into-summary.ts';
import type { ConversationKey, StoredTurn } from './turn.ts';

/** How a conversation's older turns are folded into its rolling summary (SUMMARY_MODEL and friends). */
export interface SummaryFolding {
  readonly summaries: ConversationSummaries;
  /** The model that writes the summaries. */
  readonly model: string;
  /** The longest summary kept, in characters. */
  readonly maxCharacters: number;
  /**
   * Fold when this many turns are not yet in the summary, whatever their size, so history's own cap
   * (HISTORY_MAX_TURNS) never drops a turn the summary does not hold.
   */
  readonly foldAfterTurns: number;
}

/** Share of the prompt budget the unsummarised turns may fill before the oldest are folded. */
const foldAtShare = 0.5;
/** What is left unsummarised after a fold, as a share of the prompt budget. */
const keepShare = 0.25;
/** The longest a summary's budget hold lasts. */
const foldHoldMs = 2 * 60_000;

/** The turns the summary does not hold yet: newer than what it covers. */
export function unsummarisedTurns(
  turns: readonly StoredTurn[],
  summary: ConversationSummary | undefined,
): StoredTurn[] {
  return summary ? turns.filter((turn) => turn.createdAt > summary.coversThrough) : [...turns];
}

/** The summary as the model gets it: a note after the system prompt. */
export function withSummaryNote(systemPrompt: string, summary: ConversationSummary | undefined): string {
  if (!summary) return systemPrompt;
  return `${systemPrompt}\n\nEarlier in this conversation (a summary of ${summary.foldedTurnCount} older messages, no longer shown):\n${summary.text}`;
}

/**
 * After a reply is recorded: when the turns the summary does not hold fill half the prompt budget of
 * the conversation's model (or pass `foldAfterTurns`), the oldest of them, whole exchanges, are
 * folded into the summary by one model call held on the asker's budgets. A budget that cannot pay,
 * or a failed call, leaves things as they were (older turns then fall out of the context as before,
 * with a note); it never fails the reply.
 */
export async function foldOlderTurns({
  folding,
  gateway,
  spending,
  conversationKey,
  actor,
  turns,
  summary,
  contextTokens,
  replyMaxTokens,
  logger,
}: {
  folding: SummaryFolding;
  gateway: Gateway;
  spending: SpendGuard;
  conversationKey: ConversationKey;
  actor: Actor;
  /** The whole history as it is now, the new exchange included. */
  turns: readonly StoredTurn[];
  summary: ConversationSummary | undefined;
  contextTokens: number;
  replyMaxTokens: number;
  logger: Logger;
}): Promise<void> {
  const open = unsummarisedTurns(turns, summary);
  const budget = promptBudgetTokens({ contextTokens, replyMaxTokens });
  const tokensOf = (list: readonly StoredTurn[]) =>
    list.reduce((total, turn) => total + estimateTokens(toChatMessage(turn)), 0);
  const openTokens = tokensOf(open);
  if (openTokens <= budget * foldAtShare && open.length < folding.foldAfterTurns) return;
  const toFold = oldestToFold({
    open,
    keepTokens: budget * keepShare,
    keepTurns: folding.foldAfterTurns / 2,
    tokensOf,
  });
  const newest = toFold.at(-1);
  if (!newest) return;
  const transcriptTokens = tokensOf(toFold) + (summary ? Math.ceil(summary.text.length / 4) : 0);
  const admission = await spending
    .admit({
      userId: actor.id,
      roleIds: actor.roleIds,
      conversationKey,
      model: folding.model,
      work: {
        kind: 'tokens',
        promptTokens: transcriptTokens + 200,
        maxCompletionTokens: Math.ceil(folding.maxCharacters / 3),
      },
      maxDurationMs: foldHoldMs,
    })
    .catch((error: unknown) => {
      logger.warn({ err: error }, 'could not check the budget for a summary');
      return undefined;
    });
  if (!admission?.isAdmitted) {
    logger.info({ conversationKey }, 'older turns not summarised: the budget cannot pay for it');
    return;
  }
  try {
    const text = await foldIntoSummary({
      gateway,
      hold: admission.hold,
      model: admission.model,
      previous: summary?.text,
      turns: toFold,
      maxCharacters: folding.maxCharacters,
    });
    if (text === '') return;
    const authors = authorsAfterFold(summary, toFold);
    await folding.summaries.set(conversationKey, {
      text,
      coversThrough: newest.createdAt,
      foldedTurnCount: (summary?.foldedTurnCount ?? 0) + toFold.length,
      ...(authors ? { authors } : {}),
    });
    logger.info(
      { conversationKey, foldedTurnCount: toFold.length, summaryCharacters: text.length },
      'older turns folded into the conversation summary',
    );
  } catch (error) {
    logger.warn({ err: error, conversationKey }, 'could not summarise older turns; they stay as they are');
  } finally {
    await admission.hold.settle();
  }
}

/**
 * Who the summary retells once these turns are folded in: its authors and the people who wrote them
 * (a name as the newest turn gives it). An older summary whose authors were never recorded stays
 * without them: it is then taken to be by several people, never by the newcomers alone.
 */
function authorsAfterFold(
  summary: ConversationSummary | undefined,
  folded: readonly StoredTurn[],
): SummaryAuthor[] | undefined {
  if (summary && summary.authors === undefined) return undefined;
  const byId = new Map((summary?.authors ?? []).map((author) => [author.id, author.name]));
  for (const turn of folded) if (turn.role === 'user') byId.set(turn.authorId, turn.authorName);
  return [...byId].map(([id, name]) => ({ id, name }));
}

/**
 * The oldest turns to fold: as many whole exchanges as leave `keepTokens` (and at least the newest
 * exchange, so Regenerate of the last reply stays exact) unsummarised.
 */
function oldestToFold({
  open,
  keepTokens,
  keepTurns,
  tokensOf,
}: {
  open: readonly StoredTurn[];
  keepTokens: number;
  keepTurns: number;
  tokensOf: (list: readonly StoredTurn[]) => number;
}): StoredTurn[] {
  let cut = 0;
  while (cut < open.length - 2) {
    const rest = open.slice(cut);
    if (tokensOf(rest) <= keepTokens && rest.length <= keepTurns) break;
    cut += 1;
    // An exchange is folded whole: never leave a reply whose question was folded.
    while (cut < open.length - 2 && open[cut]?.role === 'assistant') cut += 1;
  }
  return open.slice(0, cut);
}
