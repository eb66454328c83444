import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/delivery/card.ts';
import { createStreamingWriter } from '../../src/delivery/streaming-writer.ts';
import type { Surface } from '../../src/delivery/surface.ts';

/** What a platform shows for one message of a reply. */
export interface ShownMessage {
  readonly text: string;
  /** The labels of the buttons under it, in order. */
  readonly buttons: readonly string[];
}

/** A place to answer in, freshly opened, and a way to read what the platform shows there. */
export interface OpenedSurface {
  readonly surface: Surface;
  /** The reply's messages as the platform shows them now, oldest first. */
  shown(): Promise<readonly ShownMessage[]>;
}

/** What an implementation of Surface must expose for the contract to check it. */
export interface SurfaceUnderTest {
  readonly name: string;
  open(): Promise<OpenedSurface>;
}

const stop: Action = { id: 'parley:chat.stop:contract', label: 'Stop', style: 'danger' };
const regenerate: Action = { id: 'parley:chat.regenerate:contract', label: 'Regenerate', style: 'secondary' };

/** Paragraphs of plain words: a text every platform shows exactly as written. */
function paragraphs(totalLength: number): string {
  const paragraph = `${'word '.repeat(60)}end.`;
  const count = Math.ceil(totalLength / (paragraph.length + 2));
  return Array.from({ length: count }, (_, index) => `${index + 1}. ${paragraph}`).join('\n\n');
}

async function streamInto(surface: Surface, text: string, pieceLength: number) {
  const writer = createStreamingWriter({ surface, actionsWhileStreaming: [stop] });
  for (let index = 0; index < text.length; index += pieceLength) {
    writer.append(text.slice(index, index + pieceLength));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return writer;
}

/**
 * The contract every Surface passes, driven the way delivery drives it (through the streaming
 * writer): the console, Discord channels and interactions, and Slack run the same suite, so a reply
 * means the same thing everywhere, and a new platform knows what it must do.
 */
export function describeSurfaceContract(underTest: SurfaceUnderTest): void {
  describe(`${underTest.name} surface contract`, () => {
    it('ends a streamed reply showing exactly its text, with the final buttons under it', async () => {
      const { surface, shown } = await underTest.open();
      const reply = 'The answer, in **three** parts:\n\n- one\n- two\n- three\n\nThat is all.';
      const writer = await streamInto(surface, reply, 7);
      const delivered = await writer.finish({ finishReason: 'stop', actions: [regenerate] });
      expect(delivered.text).toBe(reply);
      const messages = await shown();
      expect(messages.map((message) => message.text).join('')).toBe(reply);
      if (surface.setActions) expect(messages.at(-1)?.buttons).toEqual(['Regenerate']);
      else expect(messages.every((message) => message.buttons.length === 0)).toBe(true);
    }, 30_000);

    it('rolls a long reply over into messages within its limit, the buttons under the last only', async () => {
      const { surface, shown } = await underTest.open();
      const maxLength = surface.limits.maxMessageLength;
      // A terminal has no real limit: one message holds any reply.
      const reply = paragraphs(Math.min(maxLength * 2.3, 30_000));
      const writer = await streamInto(surface, reply, 997);
      await writer.finish({ finishReason: 'stop', actions: [regenerate] });
      const messages = await shown();
      expect(messages.every((message) => message.text.length <= maxLength)).toBe(true);
      expect(messages.map((message) => message.text).join('')).toBe(reply);
      if (maxLength < reply.length) expect(messages.length).toBeGreaterThan(1);
      for (const message of messages.slice(0, -1)) expect(message.buttons).toEqual([]);
      if (surface.setActions) expect(messages.at(-1)?.buttons).toEqual(['Regenerate']);
    }, 60_000);

    it('keeps what a broken-off reply showed and says it was cut, offering to try again', async () => {
      const { surface, shown } = await underTest.open();
      const writer = await streamInto(surface, 'Half of an answer', 4);
      await writer.fail({ reason: 'the model stopped answering', actions: [regenerate] });
      const messages = await shown();
      const text = messages.map((message) => message.text).join('');
      expect(text.startsWith('Half of an answer')).toBe(true);
      expect(text).toContain('reply cut off: the model stopped answering');
      if (surface.setActions) expect(messages.at(-1)?.buttons).toEqual(['Regenerate']);
    }, 30_000);

    it('makes a queued call once, when it is granted, and hands back its result', async () => {
      const { surface } = await underTest.open();
      let runs = 0;
      const run = async () => {
        runs += 1;
        return 'granted';
      };
      const result = surface.enqueue ? await surface.enqueue({ kind: 'post' }, run) : await run();
      expect(result).toBe('granted');
      expect(runs).toBe(1);
    });

    it('answers "not-available" from its native stream, or streams, never both', async () => {
      const { surface, shown } = await underTest.open();
      if (!surface.stream) return;
      const streamed = await surface.stream('Streaming **natively**');
      const message = streamed === 'not-available' ? await surface.post('Posted instead') : streamed;
      await surface.edit(
        message,
        streamed === 'not-available' ? 'Posted instead, done' : 'Streaming **natively**, done',
        {
          isFinal: true,
          actions: [],
        },
      );
      const messages = await shown();
      expect(messages).toHaveLength(1);
      expect(messages[0]?.text).toMatch(/, done$/);
    }, 30_000);
  });
}
