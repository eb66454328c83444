import type { Actor } from '../src/access/actor.ts';
import { storeUnavailableMessage } from '../src/conversation/engine.ts';
import type { Form } from '../src/delivery/form.ts';
import { traceCommand } from '../src/tracing/turn-spans.ts';
import { userMessageOf } from '../src/user-facing-error.ts';
import { parseCommandInput, type RawOptionValue } from './command-options.ts';
import type { ChannelMessage, Command, CommandResponder, CommandServices } from './define-command.ts';
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
 * How a command run ended: run, refused by its options or by access, or failed (the person was told
 * each time). A scheduled run reads it to know whether to try again; platforms need not.
 */
export type CommandRunStatus = 'done' | 'invalid' | 'refused' | 'failed';

/**
 * Runs a command the same way on every platform: options validated by its schema (a bad option is
 * one line that says what is allowed), the conversation's order kept, and every failure turned into
 * a short message for the person with the details in the log. Each run is a span of its own.
 */
export function runCommand(options: Parameters<typeof runTracedCommand>[0]): Promise<CommandRunStatus> {
  return traceCommand(
    { kind: 'command', name: options.command.name, conversationKey: options.conversationKey },
    () => runTracedCommand(options),
  );
}

async function runTracedCommand({
  command,
  rawOptions,
  conversationKey,
  user,
  responder,
  services,
  readRecentMessages,
  signal = new AbortController().signal,
  platformNotices = [],
  platformHelp,
  platformTimeZone,
}: {
  command: Command;
  rawOptions: Readonly<Record<string, RawOptionValue | undefined>>;
  conversationKey: string;
  user: Actor;
  responder: CommandResponder;
  services: CommandServices;
  readRecentMessages: (limit: number) => Promise<ChannelMessage[]>;
  signal?: AbortSignal;
  platformNotices?: readonly string[];
  /** Shown first by /help: see the command context. */
  platformHelp?: string;
  /** The person's time zone as the platform tells it: see the command context. */
  platformTimeZone?: string | undefined;
}): Promise<CommandRunStatus> {
  const logger = services.logger.child({ command: command.name, conversationKey, userId: user.id });
  const parsed = parseCommandInput(command.options, rawOptions);
  if (!parsed.isValid) {
    logger.info({ problems: parsed.problems }, 'command options rejected');
    await responder.send({
      text: `⚠ ${parsed.problems.join('; ')}.\nUsage: \`${describeUsage(command.name, command.options)}\``,
      isPrivate: true,
    });
    return 'invalid';
  }
  let verdict: Awaited<ReturnType<CommandServices['access']['authorize']>>;
  try {
    verdict = await services.access.authorize({
      actor: user,
      conversationKey,
      capability: { kind: 'command', name: command.name },
    });
  } catch (error) {
    // Who may run it is kept in the store: one that does not answer still gets the person an answer.
    logger.error({ err: error }, 'conversation store unavailable');
    await responder.send({ text: `⚠ ${storeUnavailableMessage}`, isPrivate: true });
    return 'failed';
  }
  if (!verdict.isAllowed) {
    // A command waits for an answer on every platform, so it gets one, privately, every time.
    await responder.send({ text: verdict.text, isPrivate: true });
    return 'refused';
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
      ...(platformHelp === undefined ? {} : { platformHelp }),
      ...(platformTimeZone === undefined ? {} : { platformTimeZone }),
    });
  try {
    await (command.runsInConversationOrder
      ? services.engine.runInOrder(conversationKey, execute)
      : execute());
    return 'done';
  } catch (error) {
    logger.error({ err: error }, 'command failed');
    await responder
      .send({ text: `⚠ ${userMessageOf(error)}`, isPrivate: true })
      .catch((sendError: unknown) => {
        logger.error({ err: sendError }, 'could not tell the person the command failed');
      });
    return 'failed';
  }
}

/**
 * The form a command opens instead of answering these options, for platforms whose form must be
 * the first response; undefined when it answers as usual, or when asking failed (it is logged and
 * the command then simply runs).
 */
export async function formInsteadOfAnswer({
  command,
  rawOptions,
  conversationKey,
  user,
  services,
  platformNotices = [],
}: {
  command: Command;
  rawOptions: Readonly<Record<string, RawOptionValue | undefined>>;
  conversationKey: string;
  user: Actor;
  services: CommandServices;
  platformNotices?: readonly string[];
}): Promise<Form | undefined> {
  if (!command.formInsteadOfAnswer) return undefined;
  const parsed = parseCommandInput(command.options, rawOptions);
  if (!parsed.isValid) return undefined;
  try {
    return await command.formInsteadOfAnswer({
      input: parsed.input,
      conversationKey,
      user,
      services,
      platformNotices,
    });
  } catch (error) {
    services.logger.warn(
      { err: error, command: command.name },
      'could not prepare the form; answering instead',
    );
    return undefined;
  }
}
