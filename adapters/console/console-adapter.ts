import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import type { App } from '../../src/app.ts';
import { conversationKeyOf, type ImageAttachment, type IncomingTurn } from '../../src/conversation/turn.ts';
import { toGatewayError } from '../../src/gateway/gateway-error.ts';
import { fileExtensionOf } from '../../src/images/image-type.ts';
import { createConsoleSurface } from './console-surface.ts';
import { consoleHelp, parseConsoleLine } from './parse-console-line.ts';

export interface ConsoleAdapterOptions {
  readonly app: App;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** The name the model sees as the author of every line. */
  readonly userName: string;
  /** Show a prompt and handle Ctrl+C: true for a person at a terminal, false for piped input. */
  readonly isInteractive: boolean;
}

/**
 * A terminal chat through the same engine and delivery as every platform. Lines are answered one at a
 * time in order, so piped input works like typed input; it returns when input ends or on /exit.
 */
export async function runConsoleAdapter({
  app,
  input,
  output,
  userName,
  isInteractive,
}: ConsoleAdapterOptions): Promise<void> {
  const conversationKey = conversationKeyOf({ platform: 'console', workspace: 'local', channel: userName });
  const lines = createInterface({ input, terminal: isInteractive, crlfDelay: Number.POSITIVE_INFINITY });
  const logger = app.logger.child({ adapter: 'console' });
  let inFlight: AbortController | undefined;

  // Ctrl+C stops the reply being written (its text stays); with nothing running, it leaves.
  lines.on('SIGINT', () => {
    if (inFlight) inFlight.abort();
    else lines.close();
  });
  const write = (text: string) => {
    output.write(text);
  };
  const prompt = () => {
    if (isInteractive) write('\n> ');
  };

  if (isInteractive) write('parley — type /help for commands\n');
  prompt();
  for await (const line of lines) {
    const request = parseConsoleLine(line);
    if (request.kind === 'exit') break;
    inFlight = new AbortController();
    try {
      switch (request.kind) {
        case 'empty':
          break;
        case 'help':
          write(`${consoleHelp}\n`);
          break;
        case 'invalid':
          write(`${request.message}\n`);
          break;
        case 'reset':
          await app.engine.reset(conversationKey);
          write('I forgot this conversation.\n');
          break;
        case 'chat':
        case 'image': {
          const turn: IncomingTurn = {
            conversationKey,
            author: { id: userName, name: userName },
            text: request.kind === 'chat' ? request.text : request.question,
            images: request.kind === 'image' ? [fileAttachment(request.path)] : [],
          };
          const surface = createConsoleSurface({ write, outputDirectory: app.config.images.outputDirectory });
          try {
            await app.engine.reply({ turn, surface, signal: inFlight.signal });
          } finally {
            surface.flush();
          }
          write('\n');
          break;
        }
        case 'imagine':
          await drawImages({ app, prompt: request.prompt, write, signal: inFlight.signal });
          break;
      }
    } catch (error) {
      logger.error({ err: error, input: request.kind }, 'console request failed');
      write(`\nSomething went wrong: ${toGatewayError(error).userMessage}\n`);
    } finally {
      inFlight = undefined;
    }
    prompt();
  }
  lines.close();
}

function fileAttachment(path: string): ImageAttachment {
  return { name: basename(path), load: async () => new Uint8Array(await readFile(path)) };
}

async function drawImages({
  app,
  prompt,
  write,
  signal,
}: {
  app: App;
  prompt: string;
  write: (text: string) => void;
  signal: AbortSignal;
}): Promise<void> {
  write('drawing 1 image…\n');
  const startedAt = Date.now();
  let result: Awaited<ReturnType<App['gateway']['generateImages']>>;
  try {
    result = await app.gateway.generateImages({ model: app.config.models.image, prompt, count: 1, signal });
  } catch (error) {
    const failure = toGatewayError(error);
    app.logger.warn({ err: failure, kind: failure.kind }, 'image generation failed');
    write(`${failure.userMessage}\n`);
    return;
  }
  const surface = createConsoleSurface({ write, outputDirectory: app.config.images.outputDirectory });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await surface.upload?.(
    result.images.map((image, index) => ({
      name: `imagine-${stamp}-${index + 1}.${fileExtensionOf(image.mimeType)}`,
      mimeType: image.mimeType,
      bytes: image.bytes,
    })),
    [...result.notices, `done in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`].join('\n'),
  );
  write('\n');
}
