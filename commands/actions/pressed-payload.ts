import type { ActionPayload } from '../action-store.ts';
import type { ActionContext } from '../define-action.ts';

/**
 * The stored payload a button names, once the person may use it here; undefined after telling them
 * privately why not (the button expired, or access says no).
 */
export async function loadPressedPayload<Kind extends ActionPayload['kind']>({
  kind,
  pressed,
  user,
  responder,
  services,
}: ActionContext & { kind: Kind }): Promise<Extract<ActionPayload, { kind: Kind }> | undefined> {
  const payload = await services.actionStore.load(pressed.token);
  if (payload?.kind !== kind) {
    await responder.send({ text: 'This button has expired. Please ask again.', isPrivate: true });
    return undefined;
  }
  const verdict = await services.access.authorize({
    actor: user,
    conversationKey: payload.conversationKey,
    capability: { kind: 'command', name: kind },
  });
  if (!verdict.isAllowed) {
    await responder.send({ text: verdict.text, isPrivate: true });
    return undefined;
  }
  return payload as Extract<ActionPayload, { kind: Kind }>;
}
