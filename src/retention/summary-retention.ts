import type { ConversationSummaries, ConversationSummary } from '../conversation/conversation-summaries.ts';
import { rewriteSummaryWithout } from '../conversation/summary-rewrite.ts';
import type { ConversationKey, StoredTurn } from '../conversation/turn.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import type { Logger } from '../log.ts';
import type { SpendGuard } from '../spending/spend-guard.ts';
import type { RunInConversation } from './history-retention.ts';
import type { ForgetRequest, KeptData } from './kept-data.ts';

/** What rewriting a shared summary needs: the summary model, its bounds, the gateway and the guard. */
export interface SummaryRewriting {
  readonly gateway: Gateway;
  readonly spending: SpendGuard;
  /** SUMMARY_MODEL. */
  readonly model: string;
  /** SUMMARY_MAX_CHARACTERS. */
  readonly maxCharacters: number;
}

/** The longest a rewrite's budget hold lasts. */
const rewriteHoldMs = 2 * 60_000;

/**
 * Conversations' rolling summaries: a summary that holds only turns older than its place's cutoff
 * goes with them in the sweep. /forget removes a person, not a place: a summary only they wrote
 * into goes, one that retells others too is rewritten without them (one held model call), and one
 * they never wrote into stays. A rewrite that cannot be made (no budget, the gateway fails) drops
 * the summary: the person's words are never kept to spare the others' context.
 */
export function summaryKeptData({
  summaries,
  conversationKeys,
  rewriting,
  runInConversation,
  logger,
}: {
  summaries: ConversationSummaries;
  /** Every conversation that may have a summary (the history's conversations). */
  conversationKeys: () => Promise<readonly string[]>;
  rewriting: SummaryRewriting;
  /** A summary is read and written back holding its conversation's lock, so no fold interleaves. */
  runInConversation: RunInConversation;
  logger: Logger;
}): KeptData {
  return {
    name: 'summaries',
    async sweep(context) {
      let removed = 0;
      for (const key of await conversationKeys()) {
        const cutoffMs = await context.cutoffMsFor(key);
        if (cutoffMs === undefined) continue;
        const summary = await summaries.get(key);
        if (summary && Date.parse(summary.coversThrough) < cutoffMs) {
          await summaries.reset(key);
          removed += 1;
        }
      }
      return removed;
    },
    async forget(request) {
      let changed = 0;
      for (const key of request.conversationKeys) {
        const outcome = await runInConversation(key, () =>
          forgetInSummary({ summaries, rewriting, logger, request, key }),
        );
        if (outcome !== 'untouched') changed += 1;
      }
      return changed;
    },
  };
}

async function forgetInSummary({
  summaries,
  rewriting,
  logger,
  request,
  key,
}: {
  summaries: ConversationSummaries;
  rewriting: SummaryRewriting;
  logger: Logger;
  request: ForgetRequest;
  key: ConversationKey;
}): Promise<'untouched' | 'dropped' | 'rewritten'> {
  const summary = await summaries.get(key);
  const userId = request.person.userId;
  if (!summary) return 'untouched';
  const authors = summary.authors;
  if (authors && !authors.some((author) => author.id === userId)) return 'untouched';
  if (authors?.every((author) => author.id === userId)) {
    await summaries.reset(key);
    logger.info({ conversationKey: key }, 'forget: dropped a summary only the person wrote into');
    return 'dropped';
  }
  const names = namesOf({ summary, userId, turns: request.forgottenTurns });
  const text = names.length === 0 ? undefined : await rewrite({ rewriting, logger, key, summary, names });
  if (text === undefined || text === '') {
    await summaries.reset(key);
    logger.warn(
      { conversationKey: key, hasNames: names.length > 0 },
      'forget: a shared summary could not be rewritten without the person, so it was dropped',
    );
    return 'dropped';
  }
  const others = authors?.filter((author) => author.id !== userId);
  await summaries.set(key, { ...summary, text, ...(others ? { authors: others } : {}) });
  logger.info({ conversationKey: key }, 'forget: rewrote a shared summary without the person');
  return 'rewritten';
}

/** The names the summary may retell the person by: as its authors recorded them, and their turns. */
function namesOf({
  summary,
  userId,
  turns,
}: {
  summary: ConversationSummary;
  userId: string;
  turns: readonly StoredTurn[];
}): string[] {
  const names = new Set<string>();
  for (const author of summary.authors ?? []) if (author.id === userId) names.add(author.name);
  for (const turn of turns) if (turn.role === 'user' && turn.authorId === userId) names.add(turn.authorName);
  return [...names];
}

/**
 * Who pays for work done for everyone at a place (a shared summary rewritten for /forget): no
 * person, so only the place's budgets (channel, server) and the process's apply, and /usage --top
 * shows it under this id.
 */
export const placeUpkeepPayerId = 'parley-upkeep';

/** The rewritten text, or undefined when the place's budget cannot pay or the call fails. */
async function rewrite({
  rewriting,
  logger,
  key,
  summary,
  names,
}: {
  rewriting: SummaryRewriting;
  logger: Logger;
  key: ConversationKey;
  summary: ConversationSummary;
  names: readonly string[];
}): Promise<string | undefined> {
  const admission = await rewriting.spending
    .admit({
      // Charged to the place (its channel's and server's budgets), not to whoever pressed Forget: a
      // member whose own budget is spent must not make everyone lose the summary.
      userId: placeUpkeepPayerId,
      roleIds: [],
      conversationKey: key,
      model: rewriting.model,
      work: {
        kind: 'tokens',
        promptTokens: Math.ceil(summary.text.length / 4) + 250,
        maxCompletionTokens: Math.ceil(rewriting.maxCharacters / 3),
      },
      maxDurationMs: rewriteHoldMs,
    })
    .catch((error: unknown) => {
      logger.warn({ err: error }, 'forget: could not check the budget for a summary rewrite');
      return undefined;
    });
  if (!admission?.isAdmitted) return undefined;
  try {
    return await rewriteSummaryWithout({
      gateway: rewriting.gateway,
      hold: admission.hold,
      model: admission.model,
      summary: summary.text,
      names,
      maxCharacters: rewriting.maxCharacters,
    });
  } catch (error) {
    logger.warn({ err: error, conversationKey: key }, 'forget: the summary rewrite failed');
    return undefined;
  } finally {
    await admission.hold.settle();
  }
}
