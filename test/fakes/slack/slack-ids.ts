import { randomBytes, randomUUID } from 'node:crypto';

// Slack message timestamps are `seconds.microseconds` strings that are unique within a channel and
// sort in posting order. One process-wide counter keeps every fake (and every payload helper) unique
// and increasing, even when many messages are posted within one microsecond of the wall clock.
let lastTsMicroseconds = 0;

/** The next message timestamp, e.g. `1718000000.000123`: the wall clock, nudged to stay increasing. */
export function nextMessageTs(): string {
  const nowMicroseconds = Date.now() * 1000;
  lastTsMicroseconds = Math.max(nowMicroseconds, lastTsMicroseconds + 1);
  const seconds = Math.floor(lastTsMicroseconds / 1_000_000);
  const microseconds = lastTsMicroseconds % 1_000_000;
  return `${seconds}.${String(microseconds).padStart(6, '0')}`;
}

const idAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A Slack-style encoded id: the type letter(s) then upper-case letters and digits, e.g. `F07ABC12DEF`. */
export function randomSlackId(prefix: string, length = 10): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) {
    id += idAlphabet[byte % idAlphabet.length];
  }
  return id;
}

/** An id for a Socket Mode envelope; Slack uses UUIDs. */
export function randomEnvelopeId(): string {
  return randomUUID();
}

/** A `trigger_id` as Slack sends them with commands and actions: `<digits>.<digits>.<hex>`. */
export function randomTriggerId(): string {
  return `${Date.now()}.${Math.floor(Math.random() * 1e12)}.${randomBytes(16).toString('hex')}`;
}

/** The current time in whole Unix seconds, as Slack's `event_time` and request timestamps use. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
