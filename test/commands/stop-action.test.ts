import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { CommandResult } from '../../commands/define-command.ts';
import { runAction } from '../../commands/run-action.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

/** A surface that keeps each message's text and buttons, like a platform would show them. */
function buttonSurface() {
  const texts = new Map<string, string>();
  const buttons = new Map<string, readonly Action[]>();
  let count = 0;
  const surface: Surface = {
    limits: { maxMessageLength: 2_000, minEditIntervalMs: 0 },
    async post(text, options) {
      count += 1;
      const message: PostedMessage = { id: `m${count}` };
      texts.set(message.id, text);
      buttons.set(message.id, options?.actions ?? []);
      return message;
    },
    async edit(message, text, options) {
      texts.set(message.id, text);
      if (options?.actions !== undefined) buttons.set(message.id, options.actions);
    },
    async setActions(message, actions) {
      buttons.set(message.id, actions);
    },
  };
  return { surface, texts, buttons };
}

const turn = {
  conversationKey: 'console:local:ada',
  author: { id: 'ada', name: 'ada' },
  actor: { id: 'ada', name: 'ada', isAdmin: false, roleIds: [], context: 'server' as const },
  text: 'count slowly',
  images: [],
};
const user = { id: 'ada', name: 'ada', isAdmin: true, roleIds: [], context: 'server' as const };

async function waitFor(predicate: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !predicate(); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  if (!predicate()) throw new Error('condition not met');
}

describe('Stop', () => {
  it('the Stop button under a streaming reply cancels it, keeps its text, then offers Regenerate', async () => {
    under.fake.enqueue({
      text: 'one two three four five six seven eight nine ten',
      chunkSize: 4,
      delayBetweenChunksMs: 50,
    });
    const { surface, texts, buttons } = buttonSurface();
    const replying = replyWithActions({ services: under.services, turn, surface });
    await waitFor(() => buttons.get('m1') !== undefined);
    const stop = buttons.get('m1')?.[0];
    expect(stop?.label).toBe('Stop');

    const sent: CommandResult[] = [];
    await runAction({
      actionId: stop?.id ?? '',
      user,
      responder: { surface, progress: async () => undefined, send: async (result) => void sent.push(result) },
      services: under.services,
      signal: new AbortController().signal,
    });
    const outcome = await replying;
    expect(outcome.status).toBe('cut');
    expect(outcome.error?.kind).toBe('cancelled');
    expect(texts.get('m1')).toMatch(/^one .*\n\n_⚠ reply cut off: Stopped\._$/s);
    expect(buttons.get('m1')?.map((action) => action.label)).toEqual(['Regenerate']);
    const history = await under.app.history.load(turn.conversationKey);
    expect(history[1]).toMatchObject({ role: 'assistant', isInterrupted: true });
    expect(sent).toEqual([]);

    // Pressing Stop again after the reply ended says so instead of failing.
    await runAction({
      actionId: stop?.id ?? '',
      user,
      responder: { surface, progress: async () => undefined, send: async (result) => void sent.push(result) },
      services: under.services,
      signal: new AbortController().signal,
    });
    expect(sent).toEqual([{ text: 'That reply has already finished.', isPrivate: true }]);
  });

  it("the caller's signal (Ctrl+C in the terminal) stops a reply too", async () => {
    under.fake.enqueue({ text: 'a b c d e f g h i j k l m n o p', chunkSize: 2, delayBetweenChunksMs: 40 });
    const { surface } = buttonSurface();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const outcome = await replyWithActions({
      services: under.services,
      turn,
      surface,
      signal: controller.signal,
    });
    expect(outcome.error?.kind).toBe('cancelled');
    expect(outcome.delivered.text.length).toBeGreaterThan(0);
    expect(outcome.delivered.text.length).toBeLessThan('a b c d e f g h i j k l m n o p'.length);
  });
});
