import { replyWithActions } from '../chat-reply.ts';
import { textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

/** A chat reply that searches the web first, whatever the model would have decided. */
export const searchCommand = defineCommand({
  name: 'search',
  description: 'Search the web and answer with sources',
  options: {
    query: textOption({ description: 'What to search for and ask', isRequired: true, isFreeText: true }),
  },
  runsInConversationOrder: false,
  async run({ input, conversationKey, user, responder, services, signal }) {
    if (!services.isSearchConfigured) {
      await responder.send({
        text: 'Web search is not set up here: an admin can point SEARCH_URL at a SearXNG instance.',
        isPrivate: true,
      });
      return;
    }
    await replyWithActions({
      services,
      surface: responder.surface,
      signal,
      // The command waits for an answer: a refusal is said, never left at "thinking…".
      isAnswerOwed: true,
      turn: {
        conversationKey,
        author: { id: user.id, name: user.name },
        actor: user,
        text: input.query,
        images: [],
        isSearchForced: true,
      },
    });
  },
});
