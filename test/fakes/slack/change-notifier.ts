/** Lets tests wait for the fake's state to reach a condition without sleeping a guessed time. */
export interface ChangeNotifier {
  notify(): void;
  /**
   * Resolves with the predicate's first truthy value. The predicate is checked at once, after every
   * change the fake makes, and every 25 ms (for conditions on state outside the fake).
   */
  waitFor<Value>(predicate: () => Value | undefined | null | false, timeoutMs?: number): Promise<Value>;
  /** Rejects every pending wait. */
  close(): void;
}

const pollIntervalMs = 25;

/** Creates a notifier. */
export function createChangeNotifier(): ChangeNotifier {
  const waiters = new Set<{ check(): void; fail(error: Error): void }>();

  return {
    notify() {
      for (const waiter of [...waiters]) {
        waiter.check();
      }
    },
    waitFor(predicate, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const startedAtMs = performance.now();
        const waiter = {
          check() {
            let value: ReturnType<typeof predicate>;
            try {
              value = predicate();
            } catch (error) {
              finish();
              reject(error);
              return;
            }
            if (value) {
              finish();
              resolve(value);
            } else if (performance.now() - startedAtMs >= timeoutMs) {
              finish();
              reject(new Error(`fake slack: waitFor timed out after ${timeoutMs} ms`));
            }
          },
          fail(error: Error) {
            finish();
            reject(error);
          },
        };
        const timer = setInterval(() => waiter.check(), pollIntervalMs);
        function finish() {
          clearInterval(timer);
          waiters.delete(waiter);
        }
        waiters.add(waiter);
        waiter.check();
      });
    },
    close() {
      for (const waiter of [...waiters]) {
        waiter.fail(new Error('fake slack: closed while waiting'));
      }
    },
  };
}
