import { textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

export const modelCommand = defineCommand({
  name: 'model',
  description: "Show or set this conversation's model",
  options: {
    name: textOption({
      description: 'The model to use from now on ("default" to go back)',
      isFreeText: true,
      maxLength: 200,
      suggest: ({ typed, models }) =>
        models.filter((model) => model.toLowerCase().includes(typed.toLowerCase())).slice(0, 25),
    }),
  },
  runsInConversationOrder: true,
  isAnswerPrivate: (input) => !input.name,
  async run({ input, conversationKey, user, responder, services }) {
    const current = (await services.settings.get(conversationKey)).model;
    if (!input.name) {
      await responder.send({
        text: [
          `This conversation uses **${current ?? services.models.chat}**${current ? '' : ' (the default)'}.`,
          `Available: ${services.models.selectable.map((model) => `\`${model}\``).join(', ')}`,
        ].join('\n'),
        isPrivate: true,
      });
      return;
    }
    if (!services.mayChangeSettings(user)) {
      await responder.send({ text: 'Only admins can change the model here.', isPrivate: true });
      return;
    }
    const isDefault = input.name.toLowerCase() === 'default';
    if (!isDefault && !services.models.selectable.includes(input.name)) {
      await responder.send({
        text: `I don't know the model \`${input.name}\`. Choose one of: ${services.models.selectable.map((model) => `\`${model}\``).join(', ')}`,
        isPrivate: true,
      });
      return;
    }
    await services.settings.update(conversationKey, { model: isDefault ? undefined : input.name });
    services.logger.info(
      { conversationKey, userId: user.id, model: isDefault ? 'default' : input.name },
      'conversation model changed',
    );
    await responder.send({
      text: isDefault
        ? `${user.name} set this conversation back to the default model, **${services.models.chat}**.`
        : `${user.name} switched this conversation to **${input.name}**.`,
    });
  },
});
