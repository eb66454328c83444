import { defineCommand } from '../define-command.ts';

export const resetCommand = defineCommand({
  name: 'reset',
  description: 'Forget this conversation (history, model and system prompt)',
  options: {},
  // engine.reset waits for the reply in progress by itself.
  runsInConversationOrder: false,
  endsConversation: true,
  async run({ conversationKey, user, responder, services }) {
    // Anyone may clear the history; the model and system prompt are settings, so only those who may
    // change settings clear them too.
    const isKeepingSettings = !services.mayChangeSettings(user);
    await services.engine.reset(conversationKey, { isKeepingSettings });
    services.logger.info({ conversationKey, userId: user.id, isKeepingSettings }, 'conversation reset');
    await responder.send({
      text: isKeepingSettings
        ? `${user.name} cleared this conversation's history. Its model and system prompt stay as an admin set them.`
        : `${user.name} cleared this conversation. I've forgotten everything said here before.`,
    });
  },
});
