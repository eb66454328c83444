import type { PostedMessage, Surface, SurfaceLimits } from '../../src/delivery/surface.ts';

/** One platform call as the fake saw it; times come from the (fake) clock. */
export interface RecordedCall {
  readonly kind: 'post' | 'edit';
  /** The message posted or edited; for a rejected post, the id it would have had. */
  readonly messageId: string;
  readonly text: string;
  readonly startedAtMs: number;
  endedAtMs: number | null;
  outcome: 'pending' | 'accepted' | 'rejected';
}

export interface RecordingSurfaceOptions extends Partial<SurfaceLimits> {
  /** What `holdFirstPost` answers; without it the surface has no such method. */
  readonly firstPostHoldMs?: number;
  /** What the surface says as `earlyPartDelayMs`; without it the surface shows no early part. */
  readonly earlyPartDelayMs?: number;
  /** How long each call takes, in fake time. */
  readonly callDurationMs?: number;
  /** Decides whether a call fails; the fake rejects it with `new Error('platform unavailable')`. */
  readonly shouldReject?: (call: RecordedCall, callIndex: number) => boolean;
}

/** A Surface that records every post and edit, can be made slow, and can be made to fail. */
export interface RecordingSurface extends Surface {
  readonly calls: RecordedCall[];
  /** What each message shows now, by id, in posting order. */
  readonly messageTexts: Map<string, string>;
  /** The most calls that were ever in flight for one message at the same time. */
  readonly maxCallsInFlightPerMessage: () => number;
  /** The most calls that were ever in flight at the same time, over all messages. */
  readonly maxCallsInFlight: () => number;
  callDurationMs: number;
  shouldReject: (call: RecordedCall, callIndex: number) => boolean;
}

export function createRecordingSurface({
  maxMessageLength = 2000,
  minEditIntervalMs = 1000,
  finalEditIntervalMs,
  firstPostHoldMs,
  earlyPartDelayMs,
  callDurationMs = 0,
  shouldReject = () => false,
}: RecordingSurfaceOptions = {}): RecordingSurface {
  const calls: RecordedCall[] = [];
  const messageTexts = new Map<string, string>();
  const inFlightByMessage = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  let maxInFlightPerMessage = 0;
  let nextMessageNumber = 1;

  const record = async (kind: RecordedCall['kind'], messageId: string, text: string): Promise<void> => {
    const call: RecordedCall = {
      kind,
      messageId,
      text,
      startedAtMs: Date.now(),
      endedAtMs: null,
      outcome: 'pending',
    };
    const callIndex = calls.push(call) - 1;
    const inFlightForMessage = (inFlightByMessage.get(messageId) ?? 0) + 1;
    inFlightByMessage.set(messageId, inFlightForMessage);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    maxInFlightPerMessage = Math.max(maxInFlightPerMessage, inFlightForMessage);
    try {
      if (surface.callDurationMs > 0)
        await new Promise((resolve) => setTimeout(resolve, surface.callDurationMs));
      if (text.length > maxMessageLength) throw new Error(`message too long: ${text.length}`);
      if (surface.shouldReject(call, callIndex)) throw new Error('platform unavailable');
      call.outcome = 'accepted';
      messageTexts.set(messageId, text);
    } catch (error) {
      call.outcome = 'rejected';
      throw error;
    } finally {
      call.endedAtMs = Date.now();
      inFlight -= 1;
      inFlightByMessage.set(messageId, (inFlightByMessage.get(messageId) ?? 1) - 1);
    }
  };

  const surface: RecordingSurface = {
    limits: {
      maxMessageLength,
      minEditIntervalMs,
      ...(finalEditIntervalMs === undefined ? {} : { finalEditIntervalMs }),
    },
    ...(firstPostHoldMs === undefined ? {} : { holdFirstPost: () => firstPostHoldMs }),
    ...(earlyPartDelayMs === undefined ? {} : { earlyPartDelayMs }),
    calls,
    messageTexts,
    callDurationMs,
    shouldReject,
    maxCallsInFlight: () => maxInFlight,
    maxCallsInFlightPerMessage: () => maxInFlightPerMessage,
    async post(text: string): Promise<PostedMessage> {
      const id = `message-${nextMessageNumber}`;
      nextMessageNumber += 1;
      await record('post', id, text);
      return { id };
    },
    async edit(message: PostedMessage, text: string): Promise<void> {
      if (!messageTexts.has(message.id)) throw new Error(`unknown message ${message.id}`);
      await record('edit', message.id, text);
    },
  };
  return surface;
}

/** The calls that reached one message, in order. */
export function callsFor(surface: RecordingSurface, messageId: string): RecordedCall[] {
  return surface.calls.filter((call) => call.messageId === messageId);
}
