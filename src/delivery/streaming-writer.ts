import type { Action } from './card.ts';
import { type Clock, systemClock } from './clock.ts';
import { earlyPartEnd } from './early-part.ts';
import { defaultFinalRetryWindowMs, finalRetryDelayMs } from './final-call-retries.ts';
import { findFenceAt, findFenceRegions } from './markdown-fences.ts';
import {
  hasActionsShown,
  type MessageSlot,
  openSlot,
  type PlannedCall,
  planNextCall,
} from './message-slots.ts';
import {
  appendNotes,
  carriedRestNote,
  carriedWholeNote,
  cutOffNote,
  failureNote,
  formatNotes,
  lengthLimitNote,
  noReplyText,
} from './reply-notes.ts';
import { minimumMaxLength, splitGrowingText, splitMessage } from './split-message.ts';
import type { PlatformFailure, PostedMessage, Surface, SurfaceCall } from './surface.ts';

/** What a finished or failed reply left on the platform. */
export interface DeliveredReply {
  /** The model text delivered: exactly what was appended, without fence additions or notes. */
  readonly text: string;
  /** The messages the reply occupies, in order. */
  readonly messages: PostedMessage[];
  /** How many edits the platform accepted; posts are not counted. */
  readonly editCount: number;
  /** True when the reply ended with `finish`, false when it broke off with `fail`. */
  readonly isComplete: boolean;
}

/** What the messages of a reply show, or are being given by a call in flight, at one moment. */
export interface DeliveryProgress {
  readonly messages: ReadonlyArray<{ readonly id: string; readonly text: string }>;
  readonly modelText: string;
}

export interface FinishOptions {
  /** The gateway's finish reason; `length` adds a note that the reply hit the token limit. */
  readonly finishReason?: string | null;
  /** Notes for the person, e.g. "I dropped the 4 oldest messages to fit the context". */
  readonly notes?: readonly string[];
  /** The buttons the finished reply keeps under its last message (Regenerate, Continue). */
  readonly actions?: readonly Action[];
}

export interface FailOptions {
  /** Why the reply broke off, as a short user-facing message: no stack, no secrets. */
  readonly reason: string;
  /** As for `finish`: a reply that broke off may still offer to try again. */
  readonly actions?: readonly Action[];
}

export interface StreamingWriterOptions {
  readonly surface: Surface;
  /** Called with each failed platform call the writer recovers from; the writer logs nothing itself. */
  readonly onError?: (error: unknown) => void;
  /**
   * Called as each platform call goes out (and once a new message has its id), with what each
   * message shows or is being given, and the model text so far: what a journal needs to finish the
   * reply if the process dies. At most once per edit and twice per post.
   */
  readonly onProgress?: (progress: DeliveryProgress) => void;
  readonly clock?: Clock;
  /**
   * Buttons under the newest message while the reply streams (Stop). They go out with the post
   * itself, move to the next message with a rollover (in the old message's final edit), and give
   * way to the `finish` or `fail` actions in the last write, so showing them costs no call of its own.
   */
  readonly actionsWhileStreaming?: readonly Action[];
  /**
   * How long a final call that keeps failing is tried again (with growing pauses) before the rest of
   * the reply goes into a new message instead. Default three minutes: long enough to ride out a
   * platform's bad minute, short enough that the person is not left with half a reply for long.
   */
  readonly finalWriteRetryWindowMs?: number;
}

/** Writes one streaming reply to a Surface, see {@link createStreamingWriter}. */
export interface StreamingWriter {
  /** Adds model text. Never waits for the platform and never throws because of it. */
  append(text: string): void;
  /**
   * Shows `text` (e.g. "still waiting for the model… 10 s") while the reply has nothing to show yet;
   * the first model text replaces it in the same message. A later call brings the line up to date
   * in an edit, within the surface's edit interval like any edit. Does nothing once model text or a
   * message other than the waiting line exists.
   */
  showWaiting(text: string): void;
  /**
   * Shows `lines` (the reply's tool steps) above the text of the message being written, while the
   * reply runs: alone before any text (in place of a waiting line), then above the answer. They are
   * never part of a final text: `finish` and `fail` leave each message its exact piece. Empty
   * removes them. At most half a message; the oldest lines give way first.
   */
  showProgress(lines: string): void;
  /**
   * Delivers the exact final text, then any notes, and resolves once the platform has all of it.
   * Rejects with the platform's error when one of these final calls fails. Calling `finish` or
   * `fail` again returns the first call's promise; text appended after either is ignored.
   */
  finish(options?: FinishOptions): Promise<DeliveredReply>;
  /**
   * Keeps the text delivered so far and adds a visible cut-off note (or, before any text, just the
   * reason); resolves and rejects like `finish`.
   */
  fail(options: FailOptions): Promise<DeliveredReply>;
}

interface Closing {
  readonly promise: Promise<DeliveredReply>;
  readonly resolve: (reply: DeliveredReply) => void;
  readonly reject: (error: unknown) => void;
  readonly isComplete: boolean;
  isDone: boolean;
}

interface WriterState {
  readonly surface: Surface;
  readonly clock: Clock;
  readonly onError: ((error: unknown) => void) | undefined;
  readonly onProgress: ((progress: DeliveryProgress) => void) | undefined;
  readonly slots: MessageSlot[];
  readonly actionsWhileStreaming: readonly Action[];
  /** The buttons of the finished reply, once `finish` or `fail` named them. */
  finalActions: readonly Action[];
  text: string;
  /** Where the text still growing into the last message starts; the text before it is settled. */
  growingStart: number;
  isCallInFlight: boolean;
  /** The pending timer's handle; while it waits, appended text simply accumulates. */
  timer: unknown;
  editCount: number;
  closing: Closing | null;
  readonly finalWriteRetryWindowMs: number;
  /** Shown in the first message until model text arrives; see `showWaiting`. */
  waitingText: string | null;
  /** Shown above the text of the message being written while the reply runs; see `showProgress`. */
  progressLines: string | null;
  /** Calls made while the reply streams that failed in a row (0 after a success): their backoff. */
  failuresInRow: number;
  /** Final calls failing in a row: when the first failed and how many have. Null after a success. */
  finalFailures: { readonly firstAtMs: number; count: number } | null;
  /** Until when the first post waits for the reply to end (see `Surface.holdFirstPost`). */
  firstPostHeldUntilMs: number | null;
  /** When the first post of model text was first ready: an early part is counted from there. */
  firstTextReadyAtMs: number | null;
  /** The post about to go is an early part (see `firstPostHoldEnd`). */
  isEarlyPartDue: boolean;
  /**
   * When each message's last call went out, while that call succeeded: once the reply has ended,
   * its final edit is paced from there by the surface's `finalEditIntervalMs` (see `paceFinalEdits`).
   */
  readonly lastCallAtMs: Map<MessageSlot, number>;
}

/**
 * Creates a writer that streams one reply into messages of a Surface. The first visible text is
 * posted the moment it arrives (or, where the surface is short of edits, once the reply ends, see
 * `Surface.holdFirstPost`); later text reaches the platform in edits, one call at a time and
 * each message edited at most once per `minEditIntervalMs`, so a burst of deltas becomes one edit.
 * Before a message would pass `maxMessageLength` it gets its final piece and the reply continues in
 * a new message, code blocks closed and reopened across the cut. `finish` leaves every message
 * showing exactly its piece of the text.
 */
export function createStreamingWriter({
  surface,
  onError,
  onProgress,
  clock = systemClock,
  actionsWhileStreaming = [],
  finalWriteRetryWindowMs = defaultFinalRetryWindowMs,
}: StreamingWriterOptions): StreamingWriter {
  if (surface.limits.maxMessageLength < minimumMaxLength) {
    throw new RangeError(`surface.limits.maxMessageLength must be at least ${minimumMaxLength}`);
  }
  const state: WriterState = {
    surface,
    clock,
    onError,
    onProgress,
    slots: [],
    actionsWhileStreaming,
    finalActions: [],
    text: '',
    growingStart: 0,
    isCallInFlight: false,
    timer: null,
    editCount: 0,
    closing: null,
    finalWriteRetryWindowMs,
    waitingText: null,
    progressLines: null,
    failuresInRow: 0,
    finalFailures: null,
    firstPostHeldUntilMs: null,
    firstTextReadyAtMs: null,
    isEarlyPartDue: false,
    lastCallAtMs: new Map(),
  };
  return {
    append(delta) {
      // Text after finish or fail can no longer be shown; dropping it keeps `append` safe to race.
      if (state.closing !== null || delta === '') return;
      state.text += delta;
      // While a call is in flight or an edit waits for its turn, the text accumulates into that edit.
      if (!state.isCallInFlight && state.timer === null) pump(state);
    },
    showWaiting(text) {
      if (state.closing !== null || /\S/.test(state.text)) return;
      const [waitingSlot, ...others] = state.slots;
      const isOnlyWaitingLine =
        waitingSlot === undefined || (others.length === 0 && waitingSlot.desiredText === state.waitingText);
      if (!isOnlyWaitingLine || text === state.waitingText) return;
      state.waitingText = text;
      if (waitingSlot !== undefined) waitingSlot.desiredText = text;
      if (!state.isCallInFlight && state.timer === null) pump(state);
    },
    showProgress(lines) {
      if (state.closing !== null) return;
      const fitted = fitProgress(lines, Math.floor(state.surface.limits.maxMessageLength / 2));
      if (fitted === (state.progressLines ?? '')) return;
      state.progressLines = fitted === '' ? null : fitted;
      if (!state.isCallInFlight && state.timer === null) pump(state);
    },
    finish({ finishReason, notes = [], actions = [] } = {}) {
      const allNotes = finishReason === 'length' ? [lengthLimitNote, ...notes] : notes;
      return close(state, allNotes, actions, true);
    },
    fail({ reason, actions = [] }) {
      const hasVisibleText = /\S/.test(state.text);
      return close(state, [hasVisibleText ? cutOffNote(reason) : failureNote(reason)], actions, false);
    },
  };
}

/** Brings the slots up to date with the text and makes the next platform call, now or on a timer. */
function pump(state: WriterState): void {
  if (state.isCallInFlight || state.closing?.isDone) return;
  if (state.closing === null) settleGrowingText(state);
  else paceFinalEdits(state);
  assignActions(state);
  const call = planNextCall(state.slots, state.clock.now());
  if (call === null) {
    if (state.closing !== null) endClosing(state, null);
    return;
  }
  const delayMs = Math.max(call.dueAtMs, firstPostHoldEnd(state, call)) - state.clock.now();
  if (delayMs > 0) {
    state.timer = state.clock.setTimeout(() => {
      state.timer = null;
      pump(state);
    }, delayMs);
    return;
  }
  startCall(state, call);
}

/**
 * Once the reply has ended, a message's final edit waits only `finalEditIntervalMs` after its last
 * call, where the surface allows less than the in-between pace: the person sees the whole answer as
 * soon as the platform's limits allow. A message whose last call failed keeps its retry pause.
 */
function paceFinalEdits(state: WriterState): void {
  const intervalMs = state.surface.limits.finalEditIntervalMs;
  if (intervalMs === undefined) return;
  for (const [slot, sentAtMs] of state.lastCallAtMs) {
    slot.nextCallAtMs = Math.min(slot.nextCallAtMs, sentAtMs + intervalMs);
  }
}

/**
 * A reply's first post of model text waits, while the reply is still being written, as long as the
 * surface says (counted from when it was first ready); `close` ends the wait, so a short reply goes
 * out whole. A waiting line ("still waiting…", a search status) and a message already
 * full (its text is settled) go at once: holding them would only hide that the bot is at work.
 *
 * Where the surface shows an early part (`earlyPartDelayMs`), the reply does not wait in silence:
 * once its text has been ready that long and can be cut cleanly (`earlyPartEnd`), what it has goes
 * out as a message of its own (see `sendEarlyPart`), and the rest is what the hold then keeps back.
 */
function firstPostHoldEnd(state: WriterState, call: PlannedCall): number {
  const isFirstGrowingPost =
    call.kind === 'post' && state.slots.every((slot) => slot.message === null || slot.isEarlyPart === true);
  if (!isFirstGrowingPost || state.closing !== null || call.slot.isSettled) return Number.NEGATIVE_INFINITY;
  const placeholder = state.progressLines ?? state.waitingText;
  if (placeholder !== null && call.slot.desiredText === placeholder) return Number.NEGATIVE_INFINITY;
  const nowMs = state.clock.now();
  state.firstTextReadyAtMs ??= nowMs;
  state.firstPostHeldUntilMs ??= nowMs + (state.surface.holdFirstPost?.() ?? 0);
  const earlyPartDelayMs = state.surface.earlyPartDelayMs;
  const isEarlyPartPossible =
    earlyPartDelayMs !== undefined &&
    state.firstPostHeldUntilMs > nowMs &&
    state.slots.every((slot) => slot.message === null);
  if (!isEarlyPartPossible) return state.firstPostHeldUntilMs;
  const earlyPartAtMs = state.firstTextReadyAtMs + earlyPartDelayMs;
  if (earlyPartAtMs <= nowMs && earlyPartEndOf(state) !== null) {
    state.isEarlyPartDue = true;
    return Number.NEGATIVE_INFINITY;
  }
  // No clean cut yet (one long word, a code block from the start): look again a little later.
  return Math.min(state.firstPostHeldUntilMs, Math.max(earlyPartAtMs, nowMs + earlyPartRetryMs));
}

/**
 * Where an early part could end now: within one message's length of where the reply's text starts,
 * and not before it holds `earlyPartMinimumCharacters`.
 */
function earlyPartEndOf(state: WriterState): number | null {
  const limitEnd = state.growingStart + state.surface.limits.maxMessageLength;
  const end = earlyPartEnd(state.text.slice(0, limitEnd), state.growingStart);
  if (end === null) return null;
  const partLength = state.text.slice(state.growingStart, end).trim().length;
  return partLength >= earlyPartMinimumCharacters ? end : null;
}

/**
 * The least text an early part shows: a few words alone ("Answer to") read as a broken reply, and a
 * reply that short is usually whole a moment later, so it waits and goes out in one message.
 */
const earlyPartMinimumCharacters = 32;

/** How soon a reply that could not cut an early part yet looks again. */
const earlyPartRetryMs = 100;

/**
 * Sends the reply's first post as an early part: into the platform's own stream when it offers one
 * now (then the reply streams as usual, in one message), else as a message of its own that gets its
 * final text at once, cut where `earlyPartEnd` says; the text after the cut grows in the next slot,
 * whose post the hold keeps back. Resolves to what was sent, for the caller's bookkeeping.
 */
async function sendEarlyPart(
  state: WriterState,
  slot: MessageSlot,
  text: string,
): Promise<
  { readonly posted: PostedMessage; readonly text: string; readonly actions: readonly Action[] } | undefined
> {
  const { surface } = state;
  const streamed = surface.stream
    ? await surface.stream(text, { actions: slot.desiredActions })
    : 'not-available';
  if (streamed !== 'not-available') return { posted: streamed, text, actions: slot.desiredActions };
  // While the stream was asked for, the reply may have ended (this slot now holds its settled final
  // text and notes) or grown past every clean cut (a long code block): then no part is cut, and
  // the caller posts the slot as it is.
  const end = state.closing === null ? earlyPartEndOf(state) : null;
  if (end === null) return undefined;
  const partText = state.text.slice(state.growingStart, end);
  slot.desiredText = partText;
  slot.isSettled = true;
  slot.isEarlyPart = true;
  slot.sentText = partText;
  state.growingStart = end;
  // The next message (empty for now) is the newest: Stop goes there, so this one is never edited.
  openSlot(state.slots);
  assignActions(state);
  const posted = await surface.post(partText, { actions: slot.desiredActions, isFinal: true });
  return { posted, text: partText, actions: slot.desiredActions };
}

/** Gives full messages their final piece and the open message the text that keeps growing. */
function settleGrowingText(state: WriterState): void {
  const { settledPieces, growingPiece } = splitGrowing(state);
  for (const piece of settledPieces) {
    const slot = openSlot(state.slots);
    slot.desiredText = piece.text;
    slot.isSettled = true;
    state.growingStart = piece.sourceEnd;
  }
  // The waiting line (or the step lines) stays until there is visible text to put in its place.
  const placeholder = state.progressLines ?? state.waitingText;
  if (growingPiece !== null && (placeholder === null || /\S/.test(growingPiece.text))) {
    openSlot(state.slots).desiredText = withProgress(state, growingPiece.text);
  } else if (placeholder !== null && state.slots.at(-1)?.isSettled !== true) {
    // Not in a message of its own after a full one: the lines wait for the text that follows.
    openSlot(state.slots).desiredText = placeholder;
  }
}

/** The text still growing, split with room left above it for the step lines. */
function splitGrowing(state: WriterState): ReturnType<typeof splitGrowingText> {
  const { maxMessageLength } = state.surface.limits;
  const room = state.progressLines === null ? 0 : state.progressLines.length + progressGap.length;
  return splitGrowingText({
    text: state.text,
    maxLength: Math.max(minimumMaxLength, maxMessageLength - room),
    startIndex: state.growingStart,
  });
}

const progressGap = '\n\n';

function withProgress(state: WriterState, text: string): string {
  return state.progressLines === null || !/\S/.test(text)
    ? text
    : `${state.progressLines}${progressGap}${text}`;
}

/** The last lines of `lines` that fit in `maxLength` characters (a single line is cut). */
function fitProgress(lines: string, maxLength: number): string {
  if (lines.length <= maxLength) return lines;
  const kept: string[] = [];
  let length = 0;
  for (const line of lines.split('\n').reverse()) {
    if (length + line.length + 1 > maxLength) break;
    kept.unshift(line);
    length += line.length + 1;
  }
  return kept.length > 0 ? kept.join('\n') : `${lines.slice(0, maxLength - 1)}…`;
}

/** Gives every remaining message its exact final text, notes included. */
function settleFinalText(state: WriterState, notes: readonly string[]): void {
  const maxLength = state.surface.limits.maxMessageLength;
  const bodyTexts = /\S/.test(state.text)
    ? splitMessage({ text: state.text, maxLength, startIndex: state.growingStart }).map((piece) => piece.text)
    : [];
  const finalTexts = appendNotes({ messageTexts: bodyTexts, notes, maxLength });
  if (finalTexts.length === 0) finalTexts.push(noReplyText);
  for (const finalText of finalTexts) {
    const slot = openSlot(state.slots);
    slot.desiredText = finalText;
    slot.isSettled = true;
  }
}

function startCall(state: WriterState, { kind, slot }: PlannedCall): void {
  // A call made after finish or fail is a final one: its failure is the caller's to handle.
  const isFinalCall = state.closing !== null;
  const { minEditIntervalMs } = state.surface.limits;
  slot.nextCallAtMs = state.clock.now() + minEditIntervalMs;
  state.isCallInFlight = true;
  // The text and buttons are read when the call really goes out (a surface may make it wait for
  // platform budget), so a post queued behind others carries everything the model wrote by then.
  let sent: { readonly text: string; readonly actions: readonly Action[] } | undefined;
  let sentAtMs = state.clock.now();
  // The slot as it is at this moment, in one call.
  const sendAsItIs = () => {
    const text = currentTextOf(state, slot) ?? slot.desiredText;
    sent = { text, actions: slot.desiredActions };
    slot.sentText = text;
    // Noted before it goes out, so a process killed mid-call leaves a journal no older than the screen.
    if (kind === 'edit') reportProgress(state);
    // Once the reply has ended, its last message with its final text and final buttons (given only
    // once every earlier message is final, see assignActions) is never edited again.
    const isWhole =
      state.closing !== null &&
      slot === state.slots.at(-1) &&
      slot.isSettled &&
      text === slot.desiredText &&
      slot.desiredActions === state.finalActions;
    return callSurface(state.surface, kind, slot, text, isWhole);
  };
  const send = () => {
    sentAtMs = state.clock.now();
    if (kind === 'post' && state.isEarlyPartDue && state.closing === null) {
      state.isEarlyPartDue = false;
      const text = currentTextOf(state, slot) ?? slot.desiredText;
      sent = { text, actions: slot.desiredActions };
      slot.sentText = text;
      return sendEarlyPart(state, slot, text).then((early) => {
        if (early === undefined) return sendAsItIs();
        sent = { text: early.text, actions: early.actions };
        return early.posted;
      });
    }
    return sendAsItIs();
  };
  const call = state.surface.enqueue ? state.surface.enqueue(surfaceCallOf(kind, slot), send) : send();
  call
    .then(
      (posted) => {
        if (posted !== null) slot.message = posted;
        else state.editCount += 1;
        slot.deliveredText = sent?.text ?? slot.desiredText;
        slot.sentText = slot.deliveredText;
        slot.shownActions = sent?.actions ?? slot.shownActions;
        slot.shownAtMs = state.clock.now();
        // Counted from when the call really went out, at the interval the surface has now (a
        // platform path can change with the call: a refused native stream edits more slowly).
        slot.nextCallAtMs = Math.max(slot.nextCallAtMs, sentAtMs + state.surface.limits.minEditIntervalMs);
        state.lastCallAtMs.set(slot, sentAtMs);
        if (isFinalCall) state.finalFailures = null;
        state.failuresInRow = 0;
        if (kind === 'post') reportProgress(state);
      },
      (error: unknown) => {
        state.lastCallAtMs.delete(slot);
        if (isFinalCall) {
          onFinalCallFailed(state, kind, slot, error);
          return;
        }
        reportError(state, error);
        // Tried again like a final call (a first post above all: until it lands the person sees
        // nothing): as soon as the platform may answer again, never sooner than it asked.
        state.failuresInRow += 1;
        const retryDelayMs = Math.max(
          minEditIntervalMs,
          finalRetryDelayMs({
            failureCount: state.failuresInRow,
            retryAfterMs: classifyFailure(state.surface, error).retryAfterMs,
          }),
        );
        slot.nextCallAtMs = Math.max(slot.nextCallAtMs, state.clock.now() + retryDelayMs);
      },
    )
    .finally(() => {
      state.isCallInFlight = false;
      pump(state);
    })
    .catch((error: unknown) => {
      // Only a bug of the writer itself lands here; settle the reply rather than crash the process.
      if (state.closing !== null) endClosing(state, { error });
      else reportError(state, error);
    });
}

function surfaceCallOf(kind: PlannedCall['kind'], slot: MessageSlot): SurfaceCall {
  if (kind === 'post' || slot.message === null) return { kind: 'post' };
  return { kind: 'edit', message: slot.message, isFinal: slot.isSettled, staleSinceMs: slot.shownAtMs };
}

/**
 * Makes one platform call; a post resolves to the new message, an edit to null. A post tries the
 * platform's own streaming first where the surface has it.
 */
async function callSurface(
  surface: Surface,
  kind: PlannedCall['kind'],
  slot: MessageSlot,
  text: string,
  isWhole: boolean,
): Promise<PostedMessage | null> {
  const actions = slot.desiredActions;
  if (kind === 'post') {
    // An early part that must be posted again (its first post failed) is still a plain post.
    if (slot.isEarlyPart === true) return surface.post(text, { actions, isFinal: true });
    const options = { actions, ...(isWhole ? { isWhole } : {}) };
    const streamed = surface.stream ? await surface.stream(text, options) : 'not-available';
    return streamed === 'not-available' ? surface.post(text, options) : streamed;
  }
  if (slot.message === null) throw new Error('cannot edit a message that was never posted');
  // A settled slot's text never changes again, so this edit is the message's last one.
  await surface.edit(slot.message, text, {
    isFinal: slot.isSettled && text === slot.desiredText,
    ...(hasActionsShown(slot) ? {} : { actions }),
  });
  return null;
}

/**
 * What a message should show right now. A settled message's text is fixed; the message still
 * growing starts where the settled text ends, so its text is the first piece of what follows.
 */
function currentTextOf(state: WriterState, slot: MessageSlot): string | undefined {
  if (slot.isSettled || state.closing !== null) return slot.desiredText;
  const { settledPieces, growingPiece } = splitGrowing(state);
  if (settledPieces[0] !== undefined) return settledPieces[0].text;
  if (growingPiece === null) return undefined;
  const placeholder = state.progressLines ?? state.waitingText;
  // Whitespace alone does not take the place of a waiting line.
  return placeholder !== null && !/\S/.test(growingPiece.text)
    ? placeholder
    : withProgress(state, growingPiece.text);
}

/**
 * A final call failed. A passing failure is tried again after a growing pause (or as long as the
 * platform asked), for up to `finalWriteRetryWindowMs`; a message whose final edit cannot land keeps
 * what it shows and the rest of the reply goes out in a new message; when even that fails, the
 * reply rejects with the platform's error.
 */
function onFinalCallFailed(
  state: WriterState,
  kind: PlannedCall['kind'],
  slot: MessageSlot,
  error: unknown,
): void {
  const nowMs = state.clock.now();
  const failure = classifyFailure(state.surface, error);
  const failures = state.finalFailures ?? { firstAtMs: nowMs, count: 0 };
  state.finalFailures = failures;
  failures.count += 1;
  const isWithinWindow = nowMs - failures.firstAtMs < state.finalWriteRetryWindowMs;
  if (failure.isRetryable && isWithinWindow) {
    reportError(state, error);
    const delayMs = finalRetryDelayMs({ failureCount: failures.count, retryAfterMs: failure.retryAfterMs });
    slot.nextCallAtMs = Math.max(slot.nextCallAtMs, nowMs + delayMs);
    return;
  }
  if (kind === 'edit' && slot.deliveredText === slot.desiredText) {
    // Only the buttons were missing: the text is all there, so the message is left as it is.
    reportError(state, error);
    slot.isGivenUp = true;
    slot.desiredActions = slot.shownActions;
    return;
  }
  if (kind === 'edit' && slot.deliveredText !== null) {
    reportError(state, error);
    carryIntoNewMessages(state, slot);
    return;
  }
  endClosing(state, { error });
}

function classifyFailure(surface: Surface, error: unknown): PlatformFailure {
  try {
    return surface.classifyFailure?.(error) ?? { isRetryable: true };
  } catch {
    return { isRetryable: true };
  }
}

/**
 * Leaves a message showing what it shows and posts the rest of its final text below it, after a
 * note. When what it shows is not the start of its final text, or the cut falls inside a code block,
 * the whole final text goes out again instead, so nothing is lost or broken.
 */
function carryIntoNewMessages(state: WriterState, slot: MessageSlot): void {
  const shownText = slot.deliveredText ?? '';
  const finalText = slot.desiredText;
  const canContinue =
    shownText !== '' &&
    finalText.startsWith(shownText) &&
    findFenceAt(findFenceRegions(finalText), shownText.length) === null;
  const note = formatNotes([canContinue ? carriedRestNote : carriedWholeNote]);
  const body = canContinue ? finalText.slice(shownText.length).replace(/^\s+/, '') : finalText;
  slot.desiredText = shownText;
  const pieces = splitMessage({
    text: `${note}\n\n${body}`,
    maxLength: state.surface.limits.maxMessageLength,
  });
  const carriers: MessageSlot[] = pieces.map((piece) => ({
    message: null,
    desiredText: piece.text,
    deliveredText: null,
    sentText: null,
    desiredActions: [],
    shownActions: [],
    shownAtMs: Number.NEGATIVE_INFINITY,
    isSettled: true,
    nextCallAtMs: Number.NEGATIVE_INFINITY,
  }));
  state.slots.splice(state.slots.indexOf(slot) + 1, 0, ...carriers);
  // The message given up on is left as it is, buttons included: another edit would fail the same way.
  slot.isGivenUp = true;
  slot.desiredActions = slot.shownActions;
  assignActions(state);
}

function reportProgress(state: WriterState): void {
  if (state.onProgress === undefined) return;
  const messages = state.slots.flatMap((slot) => {
    const text = slot.sentText ?? slot.deliveredText;
    return slot.message === null || text === null ? [] : [{ id: slot.message.id, text }];
  });
  try {
    state.onProgress({ messages, modelText: state.text });
  } catch (error) {
    reportError(state, error);
  }
}

function reportError(state: WriterState, error: unknown): void {
  try {
    state.onError?.(error);
  } catch {
    // A throwing logger must not take the reply down with it.
  }
}

/**
 * Buttons go under the newest message: Stop while the reply streams, the follow-ups once it is
 * closed; every earlier message gives its buttons up in its final edit.
 */
function assignActions(state: WriterState): void {
  const last = state.slots.at(-1);
  for (const slot of state.slots) {
    if (slot !== last && slot.isGivenUp !== true) slot.desiredActions = [];
  }
  if (last === undefined || last.isGivenUp === true) return;
  // The ending buttons say the reply is complete, so they wait until every earlier message is.
  const isRestFinal = state.slots.every(
    (slot) => slot === last || (slot.deliveredText === slot.desiredText && slot.isSettled),
  );
  last.desiredActions =
    state.closing === null || !isRestFinal ? state.actionsWhileStreaming : state.finalActions;
}

function close(
  state: WriterState,
  notes: readonly string[],
  actions: readonly Action[],
  isComplete: boolean,
): Promise<DeliveredReply> {
  if (state.closing !== null) return state.closing.promise;
  const { promise, resolve, reject } = Promise.withResolvers<DeliveredReply>();
  state.closing = { promise, resolve, reject, isComplete, isDone: false };
  state.finalActions = actions;
  settleFinalText(state, notes);
  assignActions(state);
  if (state.timer !== null) {
    // The final text may need a post that is due now, sooner than the edit the timer waits for.
    state.clock.clearTimeout(state.timer);
    state.timer = null;
  }
  pump(state);
  return promise;
}

function endClosing(state: WriterState, failure: { error: unknown } | null): void {
  const { closing } = state;
  if (closing === null) return;
  closing.isDone = true;
  if (failure !== null) {
    closing.reject(failure.error);
    return;
  }
  closing.resolve({
    text: state.text,
    messages: state.slots.flatMap((slot) => (slot.message === null ? [] : [slot.message])),
    editCount: state.editCount,
    isComplete: closing.isComplete,
  });
}
