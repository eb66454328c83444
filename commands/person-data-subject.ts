import type { Actor } from '../src/access/actor.ts';
import { type ConversationKey, placeOfConversation } from '../src/conversation/turn.ts';
import type { Person } from '../src/retention/kept-data.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/** Whose data a /forget or /export is about, and where it may reach. */
export interface DataSubject {
  readonly person: Person;
  /** The person's own request reaches every server of the platform; an admin's only their own. */
  readonly workspace: string | undefined;
  readonly isSelf: boolean;
}

/**
 * The subject of /forget or /export: the asker, or (admins only, through the one gate with
 * `administer`) a member of the asker's server. A refusal is answered here; undefined then.
 */
export async function dataSubjectOf({
  userOption,
  user,
  conversationKey,
  responder,
  services,
}: {
  userOption: string | undefined;
  user: Actor;
  conversationKey: ConversationKey;
  responder: CommandResponder;
  services: CommandServices;
}): Promise<DataSubject | undefined> {
  const place = placeOfConversation(conversationKey);
  if (userOption === undefined || userOption === user.id) {
    return { person: { platform: place.platform, userId: user.id }, workspace: undefined, isSelf: true };
  }
  const verdict = await services.access.authorize({
    actor: user,
    conversationKey,
    capability: { kind: 'administer' },
  });
  if (!verdict.isAllowed) {
    services.logger.info({ userId: user.id, subjectId: userOption }, 'refused: another person’s data');
    await responder.send({
      text: `${verdict.text} Only a server admin can ask for another member’s data.`,
      isPrivate: true,
    });
    return undefined;
  }
  return {
    person: { platform: place.platform, userId: userOption },
    workspace: place.workspace,
    isSelf: false,
  };
}
