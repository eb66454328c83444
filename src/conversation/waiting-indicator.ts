import type { StreamingWriter } from '../delivery/streaming-writer.ts';
import type { Surface } from '../delivery/surface.ts';

/** When the person is shown that parley is still working, while the model has not answered yet. */
export interface WaitingIndicators {
  /** After this long without text, the reply shows that it is still waiting. Default 5 s. */
  readonly stillWaitingAfterMs: number;
  /** How often the platform's typing indicator is renewed meanwhile (Discord's lasts 10 s). Default 8 s. */
  readonly typingIntervalMs: number;
  /**
   * How often the waiting line's elapsed time is brought up to date: one edit each time, and the
   * writer keeps it within the platform's edit interval. Default 5 s.
   */
  readonly stillWaitingUpdateMs?: number;
}

export const defaultWaitingIndicators: WaitingIndicators = {
  stillWaitingAfterMs: 5_000,
  typingIntervalMs: 8_000,
  stillWaitingUpdateMs: 5_000,
};

/** What is known while waiting: whether the gateway answered, and what parley is doing meanwhile. */
export interface WaitingState {
  /** How long the reply has waited, in milliseconds. */
  readonly elapsedMs: number;
  /** The gateway answered (response headers arrived) and the model has not written yet. */
  readonly hasResponseStarted: boolean;
  /** A step in progress ("🔎 searching: …"), shown instead of the plain waiting words. */
  readonly status?: string;
}

/**
 * The waiting line: how long, and who is slow. A model slow to start (the gateway took the request)
 * is a different wait from a gateway that has not answered at all (a network or gateway problem).
 */
export function stillWaitingText({ elapsedMs, hasResponseStarted, status }: WaitingState): string {
  const seconds = `${Math.round(elapsedMs / 1000)} s`;
  if (status !== undefined) return `_${status} · ${seconds}_`;
  return hasResponseStarted
    ? `_⏳ still waiting for the model to start writing (the model service took the request) · ${seconds}_`
    : `_⏳ still waiting: the model service has not answered yet · ${seconds}_`;
}

/** What a reply tells its waiting indicator as the gateway's events come. */
export interface WaitingIndicator {
  /** The gateway answered; the model has yet to write. */
  responseStarted(): void;
  /** A step in progress ("🔎 searching: …"), shown at once while the reply has no text. */
  showStatus(text: string): void;
  /** Text came or the reply ended: no more typing or waiting line. */
  stop(): void;
}

/**
 * While the model has not started answering: the typing indicator, renewed before it fades, and
 * after a few seconds a line saying what parley is waiting for and for how long, brought up to date
 * every few seconds, so silence never looks like a dead bot. Cheap: a timer, and one edit per update.
 */
export function showWhileWaiting({
  writer,
  surface,
  indicators,
  now = Date.now,
}: {
  writer: StreamingWriter;
  surface: Surface;
  indicators: WaitingIndicators;
  now?: () => number;
}): WaitingIndicator {
  const startedAtMs = now();
  const updateMs = indicators.stillWaitingUpdateMs ?? defaultWaitingIndicators.stillWaitingUpdateMs ?? 5_000;
  let hasResponseStarted = false;
  let status: string | undefined;
  let isStopped = false;
  const renewTyping = () => surface.showTyping?.().catch(() => undefined);
  const typingTimer = setInterval(renewTyping, indicators.typingIntervalMs);
  typingTimer.unref();
  const show = () =>
    writer.showWaiting(
      stillWaitingText({
        elapsedMs: now() - startedAtMs,
        hasResponseStarted,
        ...(status === undefined ? {} : { status }),
      }),
    );
  let waitingTimer: NodeJS.Timeout = setTimeout(function update() {
    show();
    waitingTimer = setTimeout(update, updateMs);
    waitingTimer.unref();
  }, indicators.stillWaitingAfterMs);
  waitingTimer.unref();
  return {
    responseStarted() {
      hasResponseStarted = true;
      // A step's words stay until the next request is answered: then the model is what is awaited.
      status = undefined;
    },
    showStatus(text) {
      if (isStopped) return;
      status = text;
      // A step (a search, a page read) is followed by a new request that has not been answered yet.
      hasResponseStarted = false;
      // A step is news: shown at once, with no time yet.
      writer.showWaiting(`_${text}_`);
    },
    stop() {
      isStopped = true;
      clearInterval(typingTimer);
      clearTimeout(waitingTimer);
    },
  };
}
