import { encodeActionId } from '../action-store.ts';
import { subcommandOption, userOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { dataSubjectOf } from '../person-data-subject.ts';

/**
 * `/forget me`: removes everything parley holds about the asker, everywhere on the platform, once
 * they press Forget. `/forget --user @someone` (`/forget member` on Discord): an admin's
 * data-deletion request for a member, in the admin's own server. Nothing goes before the press.
 */
export const forgetCommand = defineCommand({
  name: 'forget',
  description: 'Delete everything parley keeps about you (admins: --user, a member’s data here)',
  options: {
    action: subcommandOption({
      description: 'Whose data',
      subcommands: {
        me: { description: 'Everything parley keeps about you', optionNames: [] },
        member: { description: 'A member’s data in this server (admins)', optionNames: ['user'] },
      },
    }),
    user: userOption({ description: 'Whose data to delete (admins; this server only)' }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    if (input.action === 'member' && input.user === undefined) {
      await responder.send({ text: 'Name the member: `/forget --user @someone`.', isPrivate: true });
      return;
    }
    const subject = await dataSubjectOf({
      userOption: input.user,
      user,
      conversationKey,
      responder,
      services,
    });
    if (!subject) return;
    const token = await services.actionStore.save({
      kind: 'forget',
      conversationKey,
      askerId: user.id,
      subjectId: subject.person.userId,
      platform: subject.person.platform,
      ...(subject.workspace === undefined ? {} : { workspace: subject.workspace }),
    });
    const what =
      'the conversation turns written, the replies to them, what conversation summaries retell of them (a summary shared with others is rewritten without them), the documents and images posted (a file someone else shared too stays), button data, ratings and the index of where they wrote; spending and tool calls stay counted without the name';
    await responder.send({
      text: subject.isSelf
        ? `This deletes everything parley keeps about you, in every server here: ${what}. It cannot be undone. Press Forget to go ahead; ignore this to keep it.`
        : `This deletes everything parley keeps about member ${subject.person.userId} in this server: ${what}. It cannot be undone. Press Forget to go ahead.`,
      actions: [{ id: encodeActionId({ verb: 'data.forget', token }), label: 'Forget', style: 'danger' }],
      isPrivate: true,
    });
  },
});
