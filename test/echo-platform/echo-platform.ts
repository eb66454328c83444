import { findCommand } from '../../commands/all-commands.ts';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import { parseCommandText } from '../../commands/parse-command-text.ts';
import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { runAction } from '../../commands/run-action.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { Actor } from '../../src/access/actor.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { Logger } from '../../src/log.ts';
import { type EchoSettings, echoConfig } from './echo-config.ts';
import { createEchoResponder } from './echo-responder.ts';
import type { EchoEvent, EchoRoom } from './echo-room.ts';

/**
 * A third platform, built only on what src/ and commands/ offer every adapter: it answers every
 * message in the room, runs commands and buttons, and is started by the same seam as Discord and
 * Slack (`PlatformAdapter`). Nothing outside this folder knows it exists.
 */
export function createEchoPlatform({ room }: { room: EchoRoom }): PlatformAdapter<EchoSettings> {
  return {
    name: 'echo',
    configSchema: echoConfig,
    async start({ services, settings, logger }) {
      const running = new Set<Promise<unknown>>();
      const stopListening = room.listen((event) => {
        const handled = handle({ event, room, services, logger }).catch((error: unknown) => {
          logger.error({ err: error, platform: 'echo' }, 'echo: an event failed');
        });
        running.add(handled);
        void handled.finally(() => running.delete(handled));
      });
      logger.info({ botName: settings.botName }, 'echo: listening');
      return {
        async stop() {
          stopListening();
          await Promise.allSettled([...running]);
        },
      };
    },
  };
}

async function handle({
  event,
  room,
  services,
  logger,
}: {
  event: EchoEvent;
  room: EchoRoom;
  services: CommandServices;
  logger: Logger;
}): Promise<void> {
  const conversationKey = conversationKeyOf({ platform: 'echo', workspace: 'room', channel: event.channel });
  const user: Actor = {
    id: event.userId,
    name: event.userId,
    isAdmin: false,
    roleIds: [],
    context: 'server' as const,
  };
  const responder = createEchoResponder({ room, channel: event.channel });
  const signal = new AbortController().signal;
  switch (event.type) {
    case 'message':
      await replyWithActions({
        services,
        surface: responder.surface,
        signal,
        turn: {
          conversationKey,
          author: { id: user.id, name: user.name },
          actor: { id: user.id, name: user.name, isAdmin: false, roleIds: [], context: 'server' as const },
          text: event.text,
          images: [],
          documents: [],
        },
      });
      return;
    case 'press':
      await runAction({ actionId: event.actionId, user, responder, services, signal });
      return;
    case 'command': {
      const command = findCommand(event.name);
      if (!command) {
        await responder.send({ text: `I do not know /${event.name}.`, isPrivate: true });
        return;
      }
      await runCommand({
        command,
        rawOptions: parseCommandText(command.options, event.text),
        conversationKey,
        user,
        responder,
        services,
        signal,
        readRecentMessages: async (limit) =>
          (await services.history.load(conversationKey)).slice(-limit).map((turn) => ({
            authorName: turn.authorName,
            text: turn.text,
            createdAt: turn.createdAt,
            isBot: turn.role === 'assistant',
          })),
      });
      logger.debug({ command: command.name }, 'echo: command done');
    }
  }
}
