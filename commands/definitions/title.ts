import { firstWordsTitle, maxTitleCharacters } from '../../src/conversation/title-writer.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import { unexpiredHistory } from '../../src/conversation/unexpired-history.ts';
import { textOption } from '../command-options.ts';
import { titleConversation } from '../conversation-title.ts';
import { type CommandContext, defineCommand } from '../define-command.ts';

export const titleCommand = defineCommand({
  name: 'title',
  description: 'Rename this thread: your title, or one written from its first exchange',
  options: {
    title: textOption({
      description: `The new title (at most ${maxTitleCharacters} characters)`,
      maxLength: 100,
      // `/title Release plan`, as the README and the answer below say: the words are the title.
      isFreeText: true,
    }),
  },
  runsInConversationOrder: true,
  async run({ input, conversationKey, user, responder, services }) {
    if (!responder.renameConversation) {
      await responder.send({ text: 'There is no thread here to rename.', isPrivate: true });
      return;
    }
    const title = input.title
      ? firstWordsTitle(input.title)
      : await titleFromHistory({ conversationKey, services, user });
    if (title === undefined) {
      await responder.send({
        text: 'Nothing has been said here yet to name the thread after; give a title, like `/title Release plan`.',
        isPrivate: true,
      });
      return;
    }
    const outcome = await responder.renameConversation(title);
    services.logger.info(
      { conversationKey, userId: user.id, status: outcome.status },
      'conversation renamed',
    );
    if (outcome.status === 'unavailable') {
      await responder.send({ text: outcome.reason, isPrivate: true });
    } else if (outcome.status === 'limited') {
      const minutes = Math.max(1, Math.ceil((outcome.retryAtMs - services.now().getTime()) / 60_000));
      await responder.send({
        text: `Discord allows two renames of a thread per ten minutes, and they are used up. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        isPrivate: true,
      });
    } else {
      await responder.send({ text: `${user.name} named this thread “${outcome.title}”.` });
    }
  },
});

/** A title from the conversation's first question and answer, by the title model. */
async function titleFromHistory({
  conversationKey,
  services,
  user,
}: Pick<CommandContext<unknown>, 'conversationKey' | 'services' | 'user'>): Promise<string | undefined> {
  const [stored, placeSettings] = await Promise.all([
    services.history.load(conversationKey),
    services.places.settingsAt(placeOfConversation(conversationKey)),
  ]);
  // What is past HISTORY_RETENTION_DAYS is not sent to the model, though the sweep has not run yet.
  const { turns } = unexpiredHistory({
    turns: stored,
    summary: undefined,
    retentionDays: placeSettings.retentionDays,
    nowMs: services.now().getTime(),
  });
  const question = turns.find((turn) => turn.role === 'user');
  const answer = turns.find((turn) => turn.role === 'assistant');
  if (!question || !answer) return undefined;
  const written = await titleConversation({
    services,
    requester: user,
    conversationKey,
    exchange: { question: question.text, answer: answer.text },
  });
  return written.title;
}
