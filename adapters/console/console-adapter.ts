import { homedir } from 'node:os';
import { createInterface } from 'node:readline';
import type { WriteStream } from 'node:tty';
import { type allCommands, findCommand } from '../../commands/all-commands.ts';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { RawOptionValue } from '../../commands/command-options.ts';
import type { ChannelMessage, CommandServices } from '../../commands/define-command.ts';
import { parseCommandText } from '../../commands/parse-command-text.ts';
import { runAction } from '../../commands/run-action.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { Actor } from '../../src/access/actor.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { Action } from '../../src/delivery/card.ts';
import { genericUserMessage } from '../../src/user-facing-error.ts';
import { createConsoleResponder } from './console-responder.ts';
import { createConsoleScheduledPlaces, registerConsolePlaces } from './console-scheduled-places.ts';
import { consoleHelp, parseConsoleLine } from './parse-console-line.ts';
import { readLocalDocument, readLocalImage } from './read-local-image.ts';
import { bracketedPasteOff, bracketedPasteOn, readMessages } from './read-messages.ts';
import type { RenderMarkdown } from './terminal-markdown.ts';
import { createTerminalTurns } from './terminal-turns.ts';

export interface ConsoleAdapterOptions {
  readonly services: CommandServices;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** The name the model sees as the author of every line. */
  readonly userName: string;
  /** Folder generated images and attached data files are saved to. */
  readonly outputDirectory: string;
  /** Where typed relative paths start: the folder the person started parley from. */
  readonly workingDirectory: string;
  /** Show a prompt and handle Ctrl+C: true for a person at a terminal, false for piped input. */
  readonly isInteractive: boolean;
}

/**
 * A terminal chat through the same engine, delivery and commands as every platform. Lines are
 * answered one at a time in order, so piped input works like typed input; it returns when input ends
 * or on /exit. The person at the terminal owns the bot, so they count as an admin.
 */
export async function runConsoleAdapter(options: ConsoleAdapterOptions): Promise<void> {
  const { services, input, output, userName, outputDirectory, isInteractive, workingDirectory } = options;
  const conversationKey = conversationKeyOf({ platform: 'console', workspace: 'local', channel: userName });
  const user: Actor = { id: userName, name: userName, isAdmin: true, roleIds: [], context: 'terminal' };
  // With the web console on (CONSOLE_PORT), the person at the keyboard owns it: a link for them,
  // asked before reading begins, so that no line typed meanwhile is missed.
  const consoleLink = await services.consoleLinks?.linkFor({
    platform: 'console',
    userId: user.id,
    name: user.name,
    signedInWith: 'link',
    places: [{ platform: 'console', workspace: 'local' }],
  });
  // At a terminal readline puts it in raw mode, so the typed line shows only if readline echoes it
  // to `output`; piped input needs no echo.
  const prompt = '> ';
  const lines = createInterface({
    input,
    ...(isInteractive ? { output, prompt } : {}),
    terminal: isInteractive,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  const logger = services.logger.child({ adapter: 'console' });
  // A person reads replies rendered; piped output keeps the Markdown as the model wrote it.
  const terminal = output as Partial<Pick<WriteStream, 'columns' | 'rows'>>;
  // Loaded only for a person at a terminal: the renderer and its syntax highlighter take a while
  // (about 0.3 s), so they load while the prompt waits for the first line rather than before it;
  // every turn, typed or scheduled, waits for them before it writes (`takeTurn`), so no reply is
  // ever rendered without them.
  let renderMarkdown: RenderMarkdown | undefined;
  const markdownLoaded: Promise<void> = isInteractive
    ? import('./terminal-markdown.ts').then(
        ({ createTerminalMarkdown }) => {
          renderMarkdown = createTerminalMarkdown({ width: Math.min(terminal.columns ?? 80, 100) });
        },
        (error: unknown) => {
          // Replies then show the Markdown as the model wrote it, as piped output does.
          logger.warn({ err: error }, 'the terminal Markdown renderer could not be loaded');
        },
      )
    : Promise.resolve();
  const markdown = isInteractive
    ? {
        render: (text: string) => (renderMarkdown ?? ((unrendered: string) => unrendered))(text),
        columns: () => terminal.columns ?? 80,
        rows: () => terminal.rows ?? 24,
      }
    : undefined;
  const takeTurn = async () => {
    await markdownLoaded;
    return turns.take();
  };
  const homeDirectory = homedir();
  let inFlight: AbortController | undefined;
  let shownActions: readonly Action[] = [];
  // A typed line's answer and a scheduled run print one after the other, never into each other.
  const turns = createTerminalTurns();

  // Ctrl+C stops the reply being written (its text stays); with nothing running, it leaves.
  lines.on('SIGINT', () => {
    if (inFlight) inFlight.abort();
    else lines.close();
  });
  const write = (text: string) => {
    output.write(text);
  };
  const showActions = (actions: readonly Action[]) => {
    shownActions = actions;
    if (actions.length > 0 && isInteractive) {
      write(
        `\n${actions.map((action, index) => `[${index + 1}] ${action.label}`).join('  ')}   (/press <number>)`,
      );
    }
  };
  const readRecentMessages = async (limit: number): Promise<ChannelMessage[]> =>
    (await services.history.load(conversationKey)).slice(-limit).map((turn) => ({
      authorName: turn.authorName,
      text: turn.text,
      createdAt: turn.createdAt,
      isBot: turn.role === 'assistant',
    }));

  // Reminders and scheduled runs print in the chat, each starting on a line of its own.
  const unregisterPlaces = registerConsolePlaces(
    services,
    createConsoleScheduledPlaces({
      owner: user,
      conversationKey,
      newResponder: () =>
        createConsoleResponder({
          write: (text) => write(text),
          outputDirectory,
          isInteractive,
          onActions: showActions,
          ...(markdown ? { markdown } : {}),
        }),
      readRecentMessages,
      async takeTurn() {
        const release = await takeTurn();
        // At the prompt, the run starts below it; after it, the prompt comes back.
        if (isInteractive) write('\n');
        return () => {
          write('\n');
          if (isInteractive) lines.prompt();
          release();
        };
      },
    }),
  );
  if (consoleLink !== undefined)
    write(`web console (this link works once, for ten minutes): ${consoleLink}\n`);
  if (isInteractive) {
    // Bracketed paste on: a pasted block arrives marked, so it is one message, not one a line.
    write(`parley — chat, or type /help for commands${bracketedPasteOn}\n`);
    lines.prompt();
  }
  try {
    await answerEachMessage();
  } finally {
    if (isInteractive) write(bracketedPasteOff);
    unregisterPlaces();
    lines.close();
  }

  async function answerEachMessage(): Promise<void> {
    for await (const message of readMessages({ lines, input, isInteractive, prompt })) {
      const request = parseConsoleLine(message);
      if (request.kind === 'exit') break;
      // A scheduled run printing now finishes first; one coming due while this line is answered waits.
      const releaseTurn = await takeTurn();
      inFlight = new AbortController();
      const responder = createConsoleResponder({
        write,
        outputDirectory,
        isInteractive,
        onActions: showActions,
        ...(markdown ? { markdown } : {}),
      });
      try {
        switch (request.kind) {
          case 'empty':
            break;
          case 'invalid':
            write(`${request.message}\n`);
            break;
          case 'chat':
          case 'image':
          case 'file': {
            const image =
              request.kind === 'image'
                ? await readLocalImage({ path: request.path, homeDirectory, workingDirectory })
                : undefined;
            const file =
              request.kind === 'file'
                ? await readLocalDocument({ path: request.path, homeDirectory, workingDirectory })
                : undefined;
            const problem = (
              image && 'problem' in image ? image : file && 'problem' in file ? file : undefined
            )?.problem;
            if (problem) {
              write(`${problem}\n`);
              break;
            }
            await replyWithActions({
              services,
              surface: responder.surface,
              signal: inFlight.signal,
              turn: {
                conversationKey,
                author: { id: user.id, name: user.name },
                actor: user,
                text: request.kind === 'chat' ? request.text : request.question,
                images: image && 'attachment' in image ? [image.attachment] : [],
                documents: file && 'attachment' in file ? [file.attachment] : [],
              },
            }).finally(() => responder.surface.flush());
            write('\n');
            break;
          }
          case 'press': {
            const action = shownActions[request.actionNumber - 1];
            if (!action) write(`There is no button ${request.actionNumber} under the last answer.\n`);
            else await runAction({ actionId: action.id, user, responder, services, signal: inFlight.signal });
            responder.surface.flush();
            write('\n');
            break;
          }
          case 'command': {
            const command = findCommand(request.name);
            if (!command) {
              write(`Unknown command /${request.name}. Type /help for the list.\n`);
              break;
            }
            const options = await toRawOptions({
              commandOptions: command.options,
              text: request.text,
              homeDirectory,
              workingDirectory,
            });
            if ('problem' in options) {
              write(`${options.problem}\n`);
              break;
            }
            await runCommand({
              command,
              rawOptions: options.raw,
              conversationKey,
              user,
              responder,
              services,
              readRecentMessages,
              signal: inFlight.signal,
              platformHelp: consoleHelp,
            });
            responder.surface.flush();
            break;
          }
        }
      } catch (error) {
        logger.error({ err: error, input: request.kind }, 'console request failed');
        write(`\n${genericUserMessage}\n`);
      } finally {
        inFlight = undefined;
      }
      if (isInteractive) {
        write('\n');
        lines.prompt();
      }
      releaseTurn();
    }
  }
}

// Image and file options are paths in the terminal, read (and images checked) before the command runs.
async function toRawOptions({
  commandOptions,
  text,
  homeDirectory,
  workingDirectory,
}: {
  commandOptions: (typeof allCommands)[number]['options'];
  text: string;
  homeDirectory: string;
  workingDirectory: string;
}): Promise<{ raw: Record<string, RawOptionValue> } | { problem: string }> {
  const raw: Record<string, RawOptionValue> = parseCommandText(commandOptions, text);
  for (const [name, option] of Object.entries(commandOptions)) {
    const value = raw[name];
    if ((option.kind !== 'image' && option.kind !== 'file') || typeof value !== 'string' || value === '') {
      continue;
    }
    const read =
      option.kind === 'image'
        ? await readLocalImage({ path: value, homeDirectory, workingDirectory })
        : await readLocalDocument({ path: value, homeDirectory, workingDirectory });
    if ('problem' in read) return read;
    raw[name] = read.attachment;
  }
  return { raw };
}
