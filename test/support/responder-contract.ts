import { describe, expect, it } from 'vitest';
import type { CommandResponder } from '../../commands/define-command.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { ShownMessage } from './surface-contract.ts';

/** A command's answering place, freshly opened, and a way to read what people see there. */
export interface OpenedResponder {
  readonly responder: CommandResponder;
  /** What everyone in the place sees now, oldest first: each message's readable text and buttons. */
  shown(): Promise<readonly ShownMessage[]>;
  /** What only the person who ran the command sees (an ephemeral message, a DM, their terminal). */
  shownPrivately(): Promise<readonly string[]>;
  /**
   * The place is one person's (the terminal): everything shown there is theirs alone, so public
   * and private answers look the same and the contract does not tell them apart.
   */
  readonly isOnePersonsPlace?: boolean;
  /**
   * The most characters the platform lets one message show (Discord: 2,000 of content; Slack: 12,000
   * of `markdown` blocks); undefined where nothing limits it (the terminal).
   */
  readonly maxMessageLength?: number;
}

/** What an implementation of CommandResponder must expose for the contract to check it. */
export interface ResponderUnderTest {
  readonly name: string;
  open(): Promise<OpenedResponder>;
}

const regenerate: Action = {
  id: 'parley:extract.regenerate:contract',
  label: 'Regenerate',
  style: 'secondary',
};

const allText = (messages: readonly ShownMessage[]) => messages.map((message) => message.text).join('\n');

/**
 * An answer longer than `minimumLength`: numbered lines of plain words (every platform shows them as
 * written) with a fenced code block in the middle, long enough that a cut must fall inside it.
 */
function longAnswer(minimumLength: number): string {
  const words = (count: number) => 'word '.repeat(count).trim();
  const lineCount = Math.ceil(minimumLength / 80);
  const codeStart = Math.floor(lineCount / 3);
  const codeEnd = Math.ceil((2 * lineCount) / 3);
  const lines: string[] = [];
  for (let index = 1; index <= lineCount; index += 1) {
    if (index === codeStart) lines.push('```ts');
    lines.push(
      index > codeStart && index < codeEnd
        ? `const line${index} = "${words(10)}";`
        : `${index}. ${words(13)}`,
    );
    if (index === codeEnd) lines.push('```');
  }
  return lines.join('\n');
}

const isFenceLine = (line: string) => /^```\w*$/.test(line.trim());

/**
 * The lines a person reads across messages, in order, without the fence lines a cut inside a code
 * block adds (the splitter closes the block at the end of one message and reopens it in the next).
 */
function readLines(texts: readonly string[]): string[] {
  return texts.flatMap((text) => text.split('\n')).filter((line) => line.trim() !== '' && !isFenceLine(line));
}

/** Each message opens as many code blocks as it closes, so the code shows as code in every one. */
function expectFencesBalanced(texts: readonly string[]): void {
  for (const text of texts) {
    expect(text.split('\n').filter(isFenceLine).length % 2, text.slice(0, 80)).toBe(0);
  }
}

/**
 * The contract every CommandResponder passes: the console, Discord interactions and Slack answer a
 * command the same way, so a command written once means the same thing everywhere.
 */
export function describeResponderContract(underTest: ResponderUnderTest): void {
  describe(`${underTest.name} responder contract`, () => {
    it('shows a text answer where everyone in the place sees it', async () => {
      const { responder, shown, shownPrivately, isOnePersonsPlace } = await underTest.open();
      await responder.send({ text: 'Here is the answer: 42.' });
      expect(allText(await shown())).toContain('Here is the answer: 42.');
      if (!isOnePersonsPlace) expect((await shownPrivately()).join('\n')).not.toContain('Here is the answer');
    }, 30_000);

    it('replaces its progress line with the answer', async () => {
      const { responder, shown } = await underTest.open();
      await responder.progress('⏳ reading 12 messages…');
      await responder.progress('⏳ reading 40 messages…');
      await responder.send({ text: 'The summary.' });
      const text = allText(await shown());
      expect(text).toContain('The summary.');
      expect(text).not.toContain('⏳ reading');
    }, 30_000);

    it('shows a card with the buttons that act on it', async () => {
      const { responder, shown } = await underTest.open();
      await responder.send({
        card: { title: 'Stock list', description: 'Twelve items in three rooms.' },
        actions: [regenerate],
      });
      const messages = await shown();
      expect(allText(messages)).toContain('Stock list');
      expect(allText(messages)).toContain('Twelve items in three rooms.');
      expect(messages.flatMap((message) => message.buttons)).toEqual(['Regenerate']);
    }, 30_000);

    it('tells a private answer to the person alone', async () => {
      const { responder, shown, shownPrivately, isOnePersonsPlace } = await underTest.open();
      await responder.send({ text: 'Only for you: the budget is spent.', isPrivate: true });
      expect((await shownPrivately()).join('\n')).toContain('Only for you: the budget is spent.');
      if (!isOnePersonsPlace) expect(allText(await shown())).not.toContain('Only for you');
    }, 30_000);

    it('sends an answer longer than one message in order, whole, with its buttons under the last piece', async () => {
      const { responder, shown, maxMessageLength } = await underTest.open();
      const answer = longAnswer(Math.max(5_000, 2.5 * (maxMessageLength ?? 0)));
      await responder.progress('⏳ writing the answer…');
      await responder.send({ text: answer, actions: [regenerate] });

      const messages = await shown();
      const texts = messages.map((message) => message.text);
      expect(readLines(texts)).toEqual(readLines([answer]));
      expect(allText(messages)).not.toContain('⏳ writing');
      expectFencesBalanced(texts);
      if (maxMessageLength !== undefined) {
        expect(messages.length).toBeGreaterThan(1);
        for (const text of texts) expect(text.length).toBeLessThanOrEqual(maxMessageLength);
      }
      expect(messages.at(-1)?.buttons).toEqual(['Regenerate']);
      expect(messages.flatMap((message) => message.buttons)).toEqual(['Regenerate']);
    }, 60_000);

    it('tells a long private answer to the person alone, whole and in order', async () => {
      const { responder, shown, shownPrivately, isOnePersonsPlace, maxMessageLength } =
        await underTest.open();
      const answer = longAnswer(Math.max(5_000, 2.5 * (maxMessageLength ?? 0)));
      await responder.send({ text: answer, isPrivate: true });

      const texts = await shownPrivately();
      expect(readLines(texts)).toEqual(readLines([answer]));
      expectFencesBalanced(texts);
      if (maxMessageLength !== undefined) {
        for (const text of texts) expect(text.length).toBeLessThanOrEqual(maxMessageLength);
      }
      if (!isOnePersonsPlace) expect(allText(await shown())).not.toContain('word word');
    }, 60_000);
  });
}
