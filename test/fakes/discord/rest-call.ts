import type { RateLimitKind } from './rate-limiter.ts';

/** One REST request the fake answered, as tests and the benchmark read it back. */
export interface RestCall {
  /** When the request arrived, epoch milliseconds with sub-millisecond precision. */
  atMs: number;
  /** When the response was sent. */
  respondedAtMs: number;
  method: string;
  /** The path after `/api/v10`, decoded, e.g. `/webhooks/1/abc/messages/@original`. */
  path: string;
  /** The route's name, e.g. `message-edit`; `unknown` for a path the fake does not serve. */
  route: string;
  /** The path's parameters by name, e.g. `{ channelId, messageId }`, to count calls per channel. */
  params: Record<string, string>;
  status: number;
  /** Set when the fake answered 429; `banned`: past the Invalid Request Limit (invalid-requests.ts). */
  rateLimit: RateLimitKind | 'banned' | null;
  /** Discord's JSON error code of a refused request (50035, 10008, ...). */
  errorCode: number | null;
  /** The JSON body (or `payload_json`) as sent. */
  json: unknown;
  /** How many files a multipart body carried. */
  fileCount: number;
}
