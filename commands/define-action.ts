import type { Actor } from '../src/access/actor.ts';
import type { ActionVerb } from './action-store.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/** A pressed button, decoded by the function that made its id (action-store.ts). */
export interface PressedAction {
  readonly verb: ActionVerb;
  /** Names the payload in the action store (or, for Stop, the running reply). */
  readonly token: string;
  /** Which of several (the image Vary was pressed under). */
  readonly index: number | undefined;
}

export interface ActionContext {
  readonly pressed: PressedAction;
  readonly user: Actor;
  readonly responder: CommandResponder;
  readonly services: CommandServices;
  readonly signal: AbortSignal;
}

/**
 * A button parley draws, declared once like a command: its verb (the id's middle part), how a platform
 * acknowledges a press, and what a press does. Adapters ask the declaration; they never compare verbs.
 */
export interface ActionDefinition {
  readonly verb: ActionVerb;
  /**
   * `in-place`: the press changes only the message it sits on (Stop: the stopped reply edits its own
   * message), so a platform shows no "thinking…"; `new-answer`: the press answers anew.
   */
  readonly acknowledgement: 'in-place' | 'new-answer';
  run(context: ActionContext): Promise<void>;
}

export function defineAction(definition: ActionDefinition): ActionDefinition {
  return definition;
}
