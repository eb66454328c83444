import { type ActionVerb, decodeActionId } from './action-store.ts';
import { continueChatAction, regenerateChatAction } from './actions/chat-actions.ts';
import { confirmForgetAction } from './actions/forget-data.ts';
import { forgetMemoryAction } from './actions/forget-memory.ts';
import { regenerateImagesAction, varyImageAction } from './actions/imagine-actions.ts';
import { rateReplyAction } from './actions/rate-reply-action.ts';
import {
  deleteScheduleAction,
  pauseScheduleAction,
  resumeScheduleAction,
} from './actions/schedule-actions.ts';
import { stopReplyAction } from './actions/stop-reply.ts';
import { approveToolAction, denyToolAction } from './actions/tool-approval.ts';
import type { ActionDefinition } from './define-action.ts';

/** Every button parley draws, declared once; each platform runs presses through this list. */
export const allActions: readonly ActionDefinition[] = [
  stopReplyAction,
  regenerateChatAction,
  continueChatAction,
  regenerateImagesAction,
  varyImageAction,
  rateReplyAction,
  approveToolAction,
  denyToolAction,
  forgetMemoryAction,
  pauseScheduleAction,
  resumeScheduleAction,
  deleteScheduleAction,
  confirmForgetAction,
];

export function findAction(verb: ActionVerb): ActionDefinition | undefined {
  return allActions.find((action) => action.verb === verb);
}

/** The declaration of the button an id names, decoded by the function that made the id; undefined for any other id. */
export function actionOfId(actionId: string): ActionDefinition | undefined {
  const pressed = decodeActionId(actionId);
  return pressed && findAction(pressed.verb);
}
