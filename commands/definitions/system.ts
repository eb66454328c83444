import { truncateText } from '../../src/delivery/card.ts';
import { booleanOption, textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

export const systemCommand = defineCommand({
  name: 'system',
  description: "Show or set this conversation's system prompt",
  options: {
    prompt: textOption({ description: 'The new system prompt', isFreeText: true, maxLength: 4_000 }),
    reset: booleanOption({ description: 'Go back to the default system prompt' }),
  },
  runsInConversationOrder: true,
  isAnswerPrivate: (input) => !input.prompt && !input.reset,
  async run({ input, conversationKey, user, responder, services }) {
    if (!input.prompt && !input.reset) {
      const current = (await services.settings.get(conversationKey)).systemPrompt;
      await responder.send({
        text: `${current ? 'This conversation' : 'The default'} system prompt:\n> ${truncateText(current ?? services.systemPrompt, 1_500).replaceAll('\n', '\n> ')}`,
        isPrivate: true,
      });
      return;
    }
    if (!services.mayChangeSettings(user)) {
      await responder.send({ text: 'Only admins can change the system prompt here.', isPrivate: true });
      return;
    }
    await services.settings.update(conversationKey, { systemPrompt: input.reset ? undefined : input.prompt });
    services.logger.info(
      { conversationKey, userId: user.id, isReset: input.reset },
      'conversation system prompt changed',
    );
    await responder.send({
      text: input.reset
        ? `${user.name} set this conversation back to the default system prompt.`
        : `${user.name} changed this conversation's system prompt.`,
    });
  },
});
