import type { Admission } from '../spending/spend-guard.ts';
import type { SpendHold } from '../spending/spend-hold.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import type { PreparedTurn } from './prepare-turn.ts';
import type { ReplyRequest } from './reply-types.ts';

/** The longest a reply's budget hold lasts if the reply is never settled (a process that died). */
const replyHoldMs = 15 * 60_000;

/** Said when the new message alone leaves no room in the model's context for a reply. */
const tooLongReason = 'your message is too long for this model. Please shorten it.';

/**
 * A turn let through, on the model the budgets chose and with its hold, or the reason it is not:
 * what the person is told instead of a reply.
 */
export type TurnAdmission =
  | { readonly isAdmitted: true; readonly prepared: PreparedTurn; readonly hold: SpendHold }
  | { readonly isAdmitted: false; readonly reason: string };

/**
 * Admits a prepared turn: a message too long for the model is refused before the budgets are asked.
 * Where the budgets chose their fallback model the context is fitted to it again, and their notes
 * (the fallback, a budget nearly used up) join the reply's notices.
 */
export async function admitTurn({
  dependencies,
  request,
  prepared,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  prepared: PreparedTurn;
}): Promise<TurnAdmission> {
  if (prepared.fit.isNewTurnTooLarge) return { isAdmitted: false, reason: tooLongReason };
  const admission = await holdOnBudgets({ dependencies, request, prepared });
  if (!admission.isAdmitted) return { isAdmitted: false, reason: admission.message };
  const admitted =
    admission.model === prepared.model
      ? prepared
      : { ...prepared, model: admission.model, fit: prepared.refit(admission.model) };
  admitted.notices.push(...admission.notes);
  return { isAdmitted: true, prepared: admitted, hold: admission.hold };
}

/**
 * Holds the reply's first call's worst case (the prompt as estimated plus `max_tokens`) on the
 * budgets; further calls (tool rounds) top the hold up as they are sent.
 */
function holdOnBudgets({
  dependencies,
  request,
  prepared,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  prepared: PreparedTurn;
}): Promise<Admission> {
  const { turn } = request;
  return dependencies.spending.admit({
    userId: turn.actor.id,
    roleIds: turn.actor.roleIds,
    conversationKey: turn.conversationKey,
    model: prepared.model,
    work: {
      kind: 'tokens',
      promptTokens: prepared.fit.estimatedPromptTokens,
      maxCompletionTokens: dependencies.defaults.replyMaxTokens,
    },
    mayFallBack: true,
    needsVision: prepared.images.parts.length > 0,
    maxDurationMs: replyHoldMs,
    ...(prepared.placeSettings ? { settings: prepared.placeSettings } : {}),
  });
}
