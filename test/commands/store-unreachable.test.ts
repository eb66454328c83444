import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCommand } from '../../commands/all-commands.ts';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { CommandResult, CommandServices } from '../../commands/define-command.ts';
import { runCommand } from '../../commands/run-command.ts';
import { StoreTimeoutError } from '../../src/state/time-bound-store.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { createRecordingSurface } from '../support/recording-surface.ts';

/**
 * Who may ask is read from the store. When the store does not answer (Redis frozen, past
 * STORE_TIMEOUT_MS), a person must be told, not left with silence: the fault suite's
 * store-redis-frozen found mentions that got no reply at all.
 */
let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

function withFrozenAccessStore(services: CommandServices): CommandServices {
  return {
    ...services,
    access: {
      ...services.access,
      authorize: async () => {
        throw new StoreTimeoutError({ operation: 'get', timeoutMs: 2_000 });
      },
    },
  };
}

const turn = {
  conversationKey: 'console:local:ada',
  author: { id: 'ada', name: 'ada' },
  actor: { id: 'ada', name: 'ada', isAdmin: false, roleIds: [], context: 'server' as const },
  text: 'hello',
  images: [],
};

describe('a store that does not answer who may ask', () => {
  it('gives a mention a clear line instead of silence, and calls no model', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 0 });
    const outcome = await replyWithActions({
      services: withFrozenAccessStore(under.services),
      turn,
      surface,
    });
    expect(outcome.status).toBe('failed');
    expect([...surface.messageTexts.values()]).toEqual([
      '_⚠ I cannot reach my memory of this conversation right now. Please try again in a moment._',
    ]);
    expect(under.fake.requests).toEqual([]);
    expect(under.logOutput()).toContain('the store did not answer get within 2000 ms');
  });

  it('gives a command a private line instead of silence', async () => {
    const sent: CommandResult[] = [];
    const command = findCommand('model');
    if (!command) throw new Error('model command missing');
    await runCommand({
      command,
      rawOptions: {},
      conversationKey: turn.conversationKey,
      user: { id: 'ada', name: 'ada', isAdmin: true, roleIds: [], context: 'server' as const },
      responder: {
        surface: createRecordingSurface({ minEditIntervalMs: 0 }),
        progress: async () => undefined,
        send: async (result) => {
          sent.push(result);
        },
      },
      services: withFrozenAccessStore(under.services),
      readRecentMessages: async () => [],
    });
    expect(sent).toEqual([{ text: expect.stringMatching(/^⚠ /), isPrivate: true }]);
  });
});
