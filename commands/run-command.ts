import { userMessageOf } from '../src/user-facing-error.ts';
import { parseCommandInput, type RawOptionValue } from './command-options.ts';
import type {
  ChannelMessage,
  Command,
  CommandResponder,
  CommandServices,
  CommandUser,
} from './define-command.ts';
import { describeUsage } from './parse-command-text.ts';

/**
 * Whether the command's answer to these options will be private: a bad option gets a private
 * usage line, and a command may declare its answer private (`isAnswerPrivate`).
 */
export function isAnswerPrivate({
  command,
  rawOptions,
}: {
  command: Command;
  rawOptions: Readonly<Record<string, RawOptionValue | undefined>>;
}): boolean {
  const parsed = parseCommandInput(command.options, rawOptions);
  return !parsed.isValid || (command.isAnswerPrivate?.(parsed.input) ?? false);
}

/**
 * Runs a command the same way on every platform: options validated by its schema (a bad option is
 * one line that says what is allowed), the conversation's order kept, and every failure turned into
 * a short message for the person with the details in the log.
 */
export async function runCommand({
  command,
  rawOptions,
  conversationKey,
  user,
  responder,
  services,
  readRecentMessages,
  signal = new AbortController().signal,
  platformNotices = [],
}: {
  command: Command;
  rawOptions: Readonly<Record<string, RawOptionValue | undefined>>;
  conversationKey: string;
  user: CommandUser;
  responder: CommandResponder;
  services: CommandServices;
  readRecentMessages: (limit: number) => Promise<ChannelMessage[]>;
  signal?: AbortSignal;
  platformNotices?: readonly string[];
}): Promise<void> {
  const logger = services.logger.child({ command: command.name, conversationKey, userId: user.id });
  const parsed = parseCommandInput(command.options, rawOptions);
  if (!parsed.isValid) {
    logger.info({ problems: parsed.problems }, 'command options rejected');
    await responder.send({
      text: `⚠ ${parsed.problems.join('; ')}.\nUsage: \`${describeUsage(command.name, command.options)}\``,
      isPrivate: true,
    });
    return;
  }
  const execute = () =>
    command.run({
      input: parsed.input,
      conversationKey,
      user,
      responder,
      services: { ...services, logger },
      readRecentMessages,
      signal,
      platformNotices,
    });
  try {
    await (command.runsInConversationOrder
      ? services.engine.runInOrder(conversationKey, execute)
      : execute());
  } catch (error) {
    logger.error({ err: error }, 'command failed');
    await responder
      .send({ text: `⚠ ${userMessageOf(error)}`, isPrivate: true })
      .catch((sendError: unknown) => {
        logger.error({ err: sendError }, 'could not tell the person the command failed');
      });
  }
}
