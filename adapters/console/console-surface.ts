import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';

/**
 * The terminal as a Surface. A terminal cannot rewrite what it printed, but delivery only ever grows
 * a message, so an edit prints what is new; an edit that changes earlier text reprints the message.
 */
export function createConsoleSurface({
  write,
  outputDirectory,
}: {
  write: (text: string) => void;
  outputDirectory: string;
}): Surface {
  const printedTexts = new Map<string, string>();
  let messageCount = 0;
  let lastMessageId: string | undefined;

  const print = (messageId: string, text: string) => {
    const printed = printedTexts.get(messageId) ?? '';
    if (messageId === lastMessageId && text.startsWith(printed)) {
      write(text.slice(printed.length));
    } else {
      write(`${lastMessageId === undefined ? '' : '\n'}${text}`);
    }
    printedTexts.set(messageId, text);
    lastMessageId = messageId;
  };

  return {
    // Nothing on a terminal limits length or edits; rollover and throttling would only slow it down.
    limits: { maxMessageLength: 1_000_000, minEditIntervalMs: 0 },
    async post(text) {
      messageCount += 1;
      const message: PostedMessage = { id: String(messageCount) };
      print(message.id, text);
      return message;
    },
    async edit(message, text) {
      print(message.id, text);
    },
    async upload(files: readonly OutgoingFile[], text?: string) {
      await mkdir(outputDirectory, { recursive: true });
      const paths: string[] = [];
      for (const file of files) {
        const path = join(outputDirectory, file.name);
        await writeFile(path, file.bytes);
        paths.push(resolve(path));
      }
      messageCount += 1;
      const message: PostedMessage = { id: String(messageCount) };
      print(message.id, [text, ...paths.map((path) => `saved ${path}`)].filter(Boolean).join('\n'));
      return message;
    },
  };
}
