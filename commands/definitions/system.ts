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
  // A multi-line prompt does not fit a one-line option: where the platform can, /system alone opens
  // a form with the current prompt to edit.
  async formInsteadOfAnswer({ input, conversationKey, user, services }) {
    if (input.prompt || input.reset || !services.mayChangeSettings(user)) return undefined;
    const current = (await services.settings.get(conversationKey)).systemPrompt;
    return {
      commandName: 'system',
      title: 'System prompt',
      submitLabel: 'Save',
      context: conversationKey,
      sections: [
        {
          heading: 'This conversation',
          fields: [
            {
              name: 'prompt',
              label: 'System prompt',
              hint: 'Empty: back to the default prompt',
              initialValue: truncateText(current ?? services.systemPrompt, 4_000),
              isMultiline: true,
            },
          ],
        },
      ],
    };
  },
  async submitForm({ submission, user, services }) {
    if (!services.mayChangeSettings(user))
      return { message: 'Only admins can change the system prompt here.' };
    const prompt = submission.values.prompt?.trim() ?? '';
    const conversationKey = submission.context;
    const isReset = prompt === '' || prompt === services.systemPrompt;
    await services.settings.update(conversationKey, { systemPrompt: isReset ? undefined : prompt });
    services.logger.info({ conversationKey, userId: user.id, isReset }, 'conversation system prompt changed');
    return {
      message: isReset
        ? 'This conversation is back to the default system prompt.'
        : 'Saved: this conversation has its own system prompt now.',
    };
  },
  async run({ input, conversationKey, user, responder, services }) {
    if (!input.prompt && !input.reset) {
      const current = (await services.settings.get(conversationKey)).systemPrompt;
      await responder.send({
        text: `${current ? "This conversation's" : 'The default'} system prompt:\n> ${truncateText(current ?? services.systemPrompt, 1_500).replaceAll('\n', '\n> ')}`,
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
