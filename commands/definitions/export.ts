import { placeOfConversation } from '../../src/conversation/turn.ts';
import { userOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { dataSubjectOf } from '../person-data-subject.ts';

/**
 * `/export`: everything parley keeps about the asker as one JSON file, sent privately (Discord: a
 * DM; Slack: the app's DM; the terminal: a file in the output folder). `--user` (admins): a
 * member's data in this server, sent to the admin, for a data request.
 */
export const exportCommand = defineCommand({
  name: 'export',
  description: 'Get everything parley keeps about you as a JSON file, by direct message',
  options: {
    user: userOption({ description: 'Whose data (admins; this server only)' }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    const subject = await dataSubjectOf({
      userOption: input.user,
      user,
      conversationKey,
      responder,
      services,
    });
    if (!subject) return;
    if (!responder.sendDirect) {
      await responder.send({ text: 'I cannot send you a private file from here.', isPrivate: true });
      return;
    }
    const exported = await services.personData.export({
      person: subject.person,
      ...(subject.workspace === undefined ? {} : { workspace: subject.workspace }),
    });
    const file = {
      name: `parley-data-${subject.person.platform}-${subject.person.userId}.json`,
      mimeType: 'application/json',
      bytes: new TextEncoder().encode(`${JSON.stringify(exported, null, 2)}\n`),
    };
    try {
      await responder.sendDirect({
        text: subject.isSelf
          ? 'Everything parley keeps about you, as JSON. `/forget me` deletes it.'
          : `What parley keeps about member ${subject.person.userId} in this server, as JSON.`,
        files: [file],
      });
    } catch (error) {
      services.logger.warn({ err: error }, 'could not send the export privately');
      await responder.send({
        text: 'I could not send you a direct message. Allow direct messages from this server’s members (or from apps), then run /export again.',
        isPrivate: true,
      });
      return;
    }
    const place = placeOfConversation(conversationKey);
    await services.audit.record({
      platform: place.platform,
      workspace: place.workspace,
      channel: place.channel,
      actor: { id: user.id, name: user.name },
      ...(subject.isSelf ? {} : { onBehalfOf: { id: subject.person.userId, name: subject.person.userId } }),
      kind: 'export',
      what: subject.isSelf
        ? '/export of their own data'
        : `/export --user ${subject.person.userId}: their data in this server`,
      result: 'done',
      details: { bytes: file.bytes.byteLength },
    });
    await responder.send({
      text: 'Sent: your data is in a direct message from me, as a JSON file.',
      isPrivate: true,
    });
  },
});
