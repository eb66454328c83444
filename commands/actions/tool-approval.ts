import type { AccessVerdict } from '../../src/access/access-gate.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { PendingApproval } from '../../src/tools/tool-approvals.ts';
import { governTools } from '../../src/tools/tool-governance.ts';
import { replyWithActions } from '../chat-reply.ts';
import type { ActionContext, ActionDefinition } from '../define-action.ts';
import { defineAction } from '../define-action.ts';

/**
 * Approve, under a tool call that would act on the world: only the asker's press counts, and it
 * answers anew — the call runs in a reply of its own, in the conversation's order.
 */
export const approveToolAction: ActionDefinition = defineAction({
  verb: 'tool.approve',
  acknowledgement: 'new-answer',
  run: (context) => decideApproval(context, 'approved'),
});

/** Deny: the call is not run, and its question says so. */
export const denyToolAction: ActionDefinition = defineAction({
  verb: 'tool.deny',
  acknowledgement: 'in-place',
  run: (context) => decideApproval(context, 'denied'),
});

/**
 * Where an approval is decided. The question is taken once (a second press finds it gone); an
 * Approve asks the gate again with the presser as they are now — may they chat here, and may they
 * still use this tool here under the place's current rules — and only then runs the call, with
 * exactly the arguments the question showed, in a new reply that takes the conversation's turn
 * like any other, so the model goes on from the call's result.
 */
async function decideApproval(
  { pressed, user, responder, services, signal }: ActionContext,
  decision: 'approved' | 'denied',
): Promise<void> {
  const press = services.toolApprovals.take({ token: pressed.token, actor: user });
  if (press.kind !== 'taken') {
    await responder.send({
      text:
        press.kind === 'not-yours'
          ? 'Only the person who asked can approve or deny this.'
          : 'This question was already answered, or it waited too long.',
      isPrivate: true,
    });
    if (press.kind === 'gone') await responder.removePressedAction?.();
    return;
  }
  const { approval } = press;
  if (decision === 'denied') {
    await recordNotRun({ services, user, approval, what: `${approval.call.name}: denied` });
    await endQuestion({
      services,
      approval,
      ending: { decision: 'not-run', detail: `${user.name} denied it` },
    });
    return;
  }
  const check = await checkAtPress({ services, user, approval });
  if (!check.isAllowed) {
    await recordNotRun({
      services,
      user,
      approval,
      what: `${approval.call.name}: approved, but refused at the press (${check.detail})`,
    });
    await endQuestion({
      services,
      approval,
      ending: { decision: 'not-run', detail: check.detail },
    });
    await responder.send({ text: check.text, isPrivate: true });
    return;
  }
  await endQuestion({ services, approval, ending: { decision: 'approved', approverName: user.name } });
  const outcome = await replyWithActions({
    services,
    surface: responder.surface,
    signal,
    turn: {
      conversationKey: approval.conversationKey,
      author: { id: user.id, name: user.name },
      actor: user,
      text: `Approved: run ${approval.call.name} with the arguments shown.`,
      images: [],
      documents: [],
    },
    verdict: check.verdict,
    approvedCall: approval.call,
    isAnswerOwed: true,
  });
  // The question already reads "approved": a reply that failed before answering (a budget refused it,
  // the store or the gateway failed) is noted, and the call's own entry says whether it ran.
  if (outcome.status === 'failed' && outcome.delivered.text === '') {
    await recordNotRun({
      services,
      user,
      approval,
      what: `${approval.call.name}: approved, but its reply failed before answering`,
    });
  }
}

/**
 * The gate asked again for the presser as they are now: may they chat in the conversation, and may
 * they use this tool there under the place's rules of now (TOOLS, TOOL_ROLE_IDS).
 */
async function checkAtPress({
  services,
  user,
  approval,
}: {
  services: ActionContext['services'];
  user: ActionContext['user'];
  approval: PendingApproval;
}): Promise<
  { isAllowed: true; verdict: AccessVerdict } | { isAllowed: false; detail: string; text: string }
> {
  const { conversationKey, call } = approval;
  try {
    const verdict = await services.access.authorize({
      actor: user,
      conversationKey,
      capability: { kind: 'command', name: 'chat' },
    });
    const settings = await services.places.settingsAt(placeOfConversation(conversationKey));
    const isToolAllowed = governTools({ tools: services.toolbox.all(), settings, actor: user }).some(
      (tool) => tool.name === call.name,
    );
    if (verdict.isAllowed && isToolAllowed) return { isAllowed: true, verdict };
    services.logger.info(
      { tool: call.name, isAllowed: verdict.isAllowed, isToolAllowed },
      'an approved tool call was refused at the press',
    );
    return {
      isAllowed: false,
      detail: 'the asker may no longer use it here',
      text: verdict.isAllowed ? `You may no longer use ${call.name} here, so it was not run.` : verdict.text,
    };
  } catch (error) {
    // The question is taken already: it must not keep buttons that would only say it is gone.
    services.logger.error({ err: error }, 'could not check who may use a tool at an Approve');
    return {
      isAllowed: false,
      detail: 'who may use it here could not be checked',
      text: 'I could not check that you may still use this tool here, so it was not run. Ask again.',
    };
  }
}

/** An acting call that did not run goes into the audit trail too; one that ran is recorded as it runs. */
function recordNotRun({
  services,
  user,
  approval,
  what,
}: {
  services: ActionContext['services'];
  user: ActionContext['user'];
  approval: PendingApproval;
  what: string;
}): Promise<void> {
  const place = placeOfConversation(approval.conversationKey);
  return services.audit.record({
    platform: place.platform,
    workspace: place.workspace,
    channel: place.channel,
    actor: { id: user.id, name: user.name },
    kind: 'tool-call',
    what,
    result: 'refused',
    details: { tool: approval.call.name, argumentsBytes: Buffer.byteLength(approval.call.arguments) },
  });
}

async function endQuestion({
  services,
  approval,
  ending,
}: {
  services: ActionContext['services'];
  approval: PendingApproval;
  ending: Parameters<PendingApproval['ended']>[0];
}): Promise<void> {
  await approval.ended(ending).catch((error: unknown) => {
    services.logger.warn({ err: error }, 'could not say on the question how it was answered');
  });
}
