import type { RecordedRequest } from '../test/fakes/gateway/index.ts';

/**
 * Every message a scenario sends carries a marker such as `[t17]` (or `[t17:3000]` for a reply of
 * about 3,000 characters). The fake gateway reads it and answers with that turn's own text, which
 * starts with `R17:`, so the report can tell whose reply a platform message is, whether it is
 * exact, and whether it was shown twice.
 */
export interface TurnMarker {
  /** What to put in the person's message. */
  readonly marker: string;
  /** The exact reply the fake gateway streams for it. */
  readonly replyText: string;
  /** The start of the reply, found once in the platform's messages when it was shown once. */
  readonly head: string;
}

let lastTurnNumber = 0;
const defaultReplyLength = 240;
const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/** A fresh marker; `replyLength` sets how long the model's reply will be. */
export function newTurnMarker({
  replyLength = defaultReplyLength,
}: {
  replyLength?: number;
} = {}): TurnMarker {
  lastTurnNumber += 1;
  const marker =
    replyLength === defaultReplyLength ? `[t${lastTurnNumber}]` : `[t${lastTurnNumber}:${replyLength}]`;
  return { marker, replyText: replyTextOf(lastTurnNumber, replyLength), head: headOf(lastTurnNumber) };
}

function headOf(turnNumber: number): string {
  return `R${turnNumber}:`;
}

/** Deterministic words after the head, cut at a word boundary near `length`. */
function replyTextOf(turnNumber: number, length: number): string {
  let text = headOf(turnNumber);
  for (let index = 0; text.length < length; index += 1) {
    text += ` ${words[(turnNumber + index) % words.length]}`;
    if (index % 12 === 11) text += '.';
  }
  return `${text}.`;
}

/** For the fake gateway's `replyTextFor`: the reply a request's last user message asks for, if marked. */
export function replyTextForRequest(request: RecordedRequest): string | undefined {
  const match = /\[t(\d+)(?::(\d+))?\]/.exec(lastUserTextOf(request.body));
  if (match === null) return undefined;
  return replyTextOf(Number(match[1]), match[2] === undefined ? defaultReplyLength : Number(match[2]));
}

/** The last user message of a chat request, as JSON text whatever shape its content has. */
export function lastUserTextOf(body: unknown): string {
  if (typeof body !== 'object' || body === null || !('messages' in body) || !Array.isArray(body.messages)) {
    return '';
  }
  const lastUser = (body.messages as unknown[]).findLast(
    (message) =>
      typeof message === 'object' && message !== null && 'role' in message && message.role === 'user',
  );
  return lastUser === undefined ? '' : JSON.stringify(lastUser);
}

/** Chat requests the gateway received for a marker (each retry and each duplicate counts). */
export function requestsFor({
  requests,
  marker,
}: {
  requests: readonly RecordedRequest[];
  marker: TurnMarker;
}): RecordedRequest[] {
  return requests.filter(
    (request) =>
      request.path.endsWith('/chat/completions') && lastUserTextOf(request.body).includes(marker.marker),
  );
}
