import { defineCommand } from '../define-command.ts';

export const resetCommand = defineCommand({
  name: 'reset',
  description: 'Forget this conversation (history, model and system prompt)',
  options: {},
  // engine.reset waits for the reply in progress by itself.
  runsInConversationOrder: false,
  async run({ conversationKey, user, responder, services }) {
    await services.engine.reset(conversationKey);
    services.logger.info({ conversationKey, userId: user.id }, 'conversation reset');
    await responder.send({
      text: `${user.name} cleared this conversation. I've forgotten everything said here before.`,
    });
  },
});
