import type { ActionContext, ActionDefinition } from '../define-action.ts';
import { defineAction } from '../define-action.ts';

/** Approve, under a tool call that would act on the world: only the asker's press counts. */
export const approveToolAction: ActionDefinition = defineAction({
  verb: 'tool.approve',
  acknowledgement: 'in-place',
  run: (context) => answer(context, 'approved'),
});

/** Deny: the call is not run, and the model is told so. */
export const denyToolAction: ActionDefinition = defineAction({
  verb: 'tool.deny',
  acknowledgement: 'in-place',
  run: (context) => answer(context, 'denied'),
});

async function answer(
  { pressed, user, responder, services }: ActionContext,
  decision: 'approved' | 'denied',
): Promise<void> {
  const outcome = services.toolApprovals.answer({ token: pressed.token, actor: user, decision });
  if (outcome === 'answered') return;
  await responder.send({
    text:
      outcome === 'not-yours'
        ? 'Only the person who asked can approve or deny this.'
        : 'This question was already answered, or it waited too long.',
    isPrivate: true,
  });
  if (outcome === 'gone') await responder.removePressedAction?.();
}
