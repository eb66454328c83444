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
  });
}
