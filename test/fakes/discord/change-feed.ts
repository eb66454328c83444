import type { FakeInteraction, InteractionResponse } from './interaction-store.ts';
import type { FakeMessage } from './message-store.ts';
import type { RestCall } from './rest-call.ts';

/** Something that changed in the fake, for tests and benchmarks that follow it as it happens. */
export type FakeDiscordEvent =
  | { type: 'message-create'; message: FakeMessage }
  | { type: 'message-update'; message: FakeMessage }
  | { type: 'message-delete'; message: FakeMessage }
  | { type: 'interaction-response'; interaction: FakeInteraction; response: InteractionResponse }
  | { type: 'commands-registered'; scope: string }
  | { type: 'rest-call'; call: RestCall };

/** Listeners of changes, and waiting for a condition to become true. */
export interface ChangeFeed {
  emit(event: FakeDiscordEvent): void;
  /** Calls `listener` for every later change; returns the function that stops it. */
  subscribe(listener: (event: FakeDiscordEvent) => void): () => void;
  /**
   * Resolves with the first truthy value `check` returns, evaluated now and after every change.
   * Rejects after `timeoutMs`, naming `description` so the failing test says what it waited for.
   */
  waitFor<Value>(check: () => Value | undefined | null | false, options?: WaitForOptions): Promise<Value>;
}

/** How long `waitFor` waits, and what to call the condition in its timeout error. */
export interface WaitForOptions {
  /** Default 5,000 ms. */
  timeoutMs?: number;
  description?: string;
}

// A check may depend on things the feed does not see (the bot's own state); polling covers them.
const pollIntervalMs = 20;

/** Creates a feed with no listeners. */
export function createChangeFeed(): ChangeFeed {
  const listeners = new Set<(event: FakeDiscordEvent) => void>();

  function subscribe(listener: (event: FakeDiscordEvent) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  return {
    emit(event) {
      for (const listener of listeners) {
        listener(event);
      }
    },
    subscribe,
    waitFor(check, options = {}) {
      const timeoutMs = options.timeoutMs ?? 5000;
      return new Promise((resolve, reject) => {
        const cleanUps: (() => void)[] = [];
        let isSettled = false;
        const finish = (settle: () => void) => {
          isSettled = true;
          for (const cleanUp of cleanUps) {
            cleanUp();
          }
          settle();
        };
        const evaluate = () => {
          if (isSettled) {
            return;
          }
          try {
            const value = check();
            if (value !== undefined && value !== null && value !== false) {
              finish(() => resolve(value));
            }
          } catch (error) {
            finish(() => reject(error));
          }
        };
        const poll = setInterval(evaluate, pollIntervalMs);
        const timeout = setTimeout(() => {
          const what = options.description ?? 'the condition';
          finish(() => reject(new Error(`fake discord: waited ${timeoutMs} ms for ${what}`)));
        }, timeoutMs);
        cleanUps.push(
          subscribe(evaluate),
          () => clearInterval(poll),
          () => clearTimeout(timeout),
        );
        evaluate();
      });
    },
  };
}
