import type { Actor } from '../src/access/actor.ts';
import { traceCommand } from '../src/tracing/turn-spans.ts';
import { decodeActionId } from './action-store.ts';
import { findAction } from './all-actions.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/**
 * Does what a clicked button says. The button carries only a verb and a token; everything else comes
 * from the action store, so buttons keep working after a restart until they expire. A press that
 * cannot be done says why privately, so the buttons it sits among stay as they were.
 */
export async function runAction({
  actionId,
  user,
  responder,
  services,
  signal,
}: {
  actionId: string;
  user: Actor;
  responder: CommandResponder;
  services: CommandServices;
  signal: AbortSignal;
}): Promise<void> {
  const pressed = decodeActionId(actionId);
  const definition = pressed && findAction(pressed.verb);
  if (!pressed || !definition) {
    services.logger.warn({ actionId }, 'unknown action id');
    await responder.send({ text: 'I do not know that button.', isPrivate: true });
    return;
  }
  await traceCommand({ kind: 'action', name: pressed.verb }, () =>
    definition.run({ pressed, user, responder, services, signal }),
  );
}
