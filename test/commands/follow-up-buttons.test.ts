import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { PlatformFailure, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * The buttons that follow a reply (Stop gives way to Regenerate) go out with its last platform call,
 * which also carries the reply's final text. A burst of 503s there must not leave a Stop
 * button, or half a reply, forever; nor may a store that cannot save the buttons' payload.
 */
let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

class PlatformOutage extends Error {
  readonly isPassing: boolean;
  constructor(isPassing: boolean) {
    super(isPassing ? '503 Service Unavailable' : '404 Unknown Message');
    this.isPassing = isPassing;
  }
}

/** A surface whose button calls fail `failures` times first, with a passing or a final error. */
function flakyButtonSurface({ failures, isPassing }: { failures: number; isPassing: boolean }) {
  const buttons = new Map<string, readonly string[]>();
  let remainingFailures = failures;
  let buttonCallCount = 0;
  let count = 0;
  const surface: Surface = {
    limits: { maxMessageLength: 2_000, minEditIntervalMs: 0 },
    async post(_text, options) {
      count += 1;
      const message: PostedMessage = { id: `m${count}` };
      buttons.set(
        message.id,
        (options?.actions ?? []).map((action) => action.label),
      );
      return message;
    },
    async edit(message, _text, options) {
      if (options?.actions === undefined) return;
      buttonCallCount += 1;
      if (remainingFailures > 0) {
        remainingFailures -= 1;
        throw new PlatformOutage(isPassing);
      }
      buttons.set(
        message.id,
        options.actions.map((action: Action) => action.label),
      );
    },
    // The place shows buttons; delivery sends them with the text, so this is never called here.
    async setActions() {
      throw new Error('buttons travel with the final write');
    },
    classifyFailure: (error): PlatformFailure => ({
      isRetryable: error instanceof PlatformOutage && error.isPassing,
    }),
  };
  return { surface, buttons, buttonCalls: () => buttonCallCount };
}

const turn = {
  conversationKey: 'console:local:ada',
  author: { id: 'ada', name: 'ada' },
  actor: { id: 'ada', name: 'ada', isAdmin: false, roleIds: [], context: 'server' as const },
  text: 'hello',
  images: [],
};

describe('the buttons after a reply', () => {
  it('are tried again after passing failures until they land', async () => {
    under.fake.enqueue({ text: 'A short answer.' });
    const { surface, buttons, buttonCalls } = flakyButtonSurface({ failures: 2, isPassing: true });
    const outcome = await replyWithActions({ services: under.services, turn, surface });
    expect(outcome.status).toBe('complete');
    expect(buttons.get('m1')).toEqual(['Regenerate']);
    expect(buttonCalls()).toBe(3);
  });

  it('are not tried again when the platform says the call can never succeed', async () => {
    under.fake.enqueue({ text: 'A short answer.' });
    const { surface, buttons, buttonCalls } = flakyButtonSurface({ failures: 1, isPassing: false });
    await replyWithActions({ services: under.services, turn, surface });
    expect(buttonCalls()).toBe(1);
    expect(buttons.get('m1')).toEqual(['Stop']);
    expect(under.logOutput()).toContain('404 Unknown Message');
  });

  it('take Stop away even when the store cannot save what Regenerate needs', async () => {
    under.fake.enqueue({ text: 'A short answer.' });
    const { surface, buttons } = flakyButtonSurface({ failures: 0, isPassing: true });
    const services = {
      ...under.services,
      actionStore: {
        ...under.services.actionStore,
        save: async () => {
          throw new Error('the store did not answer set within 2000 ms');
        },
      },
    };
    await replyWithActions({ services, turn, surface });
    expect(buttons.get('m1')).toEqual([]);
    expect(under.logOutput()).toContain('could not show the buttons of a reply');
  });
});
