import type { Actor } from '../src/access/actor.ts';
import { type ConversationKey, placeOfConversation } from '../src/conversation/turn.ts';
import type { CommandServices } from './define-command.ts';

/**
 * Deletes what parley keeps about a person, once confirmed (the Forget button under /forget, or the
 * console's confirmed form): everywhere on the platform for their own request, only this server for
 * an admin's; recorded in the audit trail without bringing their name back. Resolves with the
 * words for the person who asked.
 */
export async function forgetPersonData({
  services,
  user,
  conversationKey,
  subject,
}: {
  services: Pick<CommandServices, 'personData' | 'audit'>;
  user: Actor;
  conversationKey: ConversationKey;
  subject: { readonly platform: string; readonly userId: string; readonly workspace: string | undefined };
}): Promise<{ readonly isDone: boolean; readonly text: string }> {
  const isSelf = subject.userId === user.id;
  const report = await services.personData.forget({
    person: { platform: subject.platform, userId: subject.userId },
    ...(subject.workspace === undefined ? {} : { workspace: subject.workspace }),
  });
  const failed = Object.entries(report).filter(([, count]) => count < 0);
  const removed = Object.values(report).reduce((total, count) => total + Math.max(0, count), 0);
  const who = isSelf ? 'you' : `member ${subject.userId}`;
  const place = placeOfConversation(conversationKey);
  await services.audit.record({
    platform: place.platform,
    workspace: place.workspace,
    channel: place.channel,
    // Their name has just left the trail: this entry does not bring it back.
    actor: { id: user.id, name: isSelf ? 'forgotten person' : user.name },
    ...(isSelf ? {} : { onBehalfOf: { id: subject.userId, name: subject.userId } }),
    kind: 'forget',
    what: isSelf
      ? `/forget me: ${removed} entries deleted`
      : `/forget --user ${subject.userId}: ${removed} entries deleted in this server`,
    result: failed.length === 0 ? 'done' : 'failed',
    details: { removed, isSelf },
  });
  return {
    isDone: failed.length === 0,
    text:
      failed.length === 0
        ? `Done: parley no longer keeps anything about ${who} (${removed} entries deleted, ${report.history ?? 0} of them conversation turns).`
        : `Partly done: ${removed} entries about ${who} deleted, but ${failed.map(([name]) => name).join(', ')} could not be reached. Run /forget again in a while.`,
  };
}
