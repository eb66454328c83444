import { replyWithActions } from '../chat-reply.ts';
import { imageOption, textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

/** The slash-command path to the same engine a mention reaches. */
export const chatCommand = defineCommand({
  name: 'chat',
  description: 'Ask parley something, optionally about an image',
  options: {
    prompt: textOption({ description: 'What you want to ask', isRequired: true, isFreeText: true }),
    image: imageOption({ description: 'An image to ask about', aliases: ['i'] }),
  },
  isUsableAnywhere: true,
  runsInConversationOrder: false,
  async run({ input, conversationKey, user, responder, services, signal }) {
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
        text: input.prompt,
        images: input.image ? [input.image] : [],
      },
    });
  },
});
