/**
 * The terminal's one screen, taken in turns: a typed line's answer and a scheduled run each print
 * whole, in the order they asked, so a reminder never lands in the middle of a streaming reply.
 */
export interface TerminalTurns {
  /** Waits for the screen; the returned function gives it to the next in line. */
  take(): Promise<() => void>;
}

export function createTerminalTurns(): TerminalTurns {
  let previous: Promise<void> = Promise.resolve();
  return {
    take() {
      let release: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        release = resolve;
      });
      const granted = previous.then(() => release);
      previous = previous.then(() => done);
      return granted;
    },
  };
}
