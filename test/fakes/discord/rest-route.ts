import type { FakeDiscordContext } from './fake-context.ts';
import type { BucketKind } from './rate-limiter.ts';
import type { RequestBody } from './request-body.ts';

/** The names of the routes the fake serves; the request log and forced 429s use them. */
export type RestRouteName =
  | 'gateway'
  | 'gateway-bot'
  | 'current-user'
  | 'user'
  | 'create-dm'
  | 'current-application'
  | 'channel'
  | 'message-create'
  | 'message-edit'
  | 'message-delete'
  | 'message-get'
  | 'message-list'
  | 'typing'
  | 'thread-from-message'
  | 'thread-in-forum'
  | 'channel-modify'
  | 'guild'
  | 'guild-channels'
  | 'guild-member'
  | 'global-commands-list'
  | 'global-commands-overwrite'
  | 'global-command-create'
  | 'guild-commands-list'
  | 'guild-commands-overwrite'
  | 'guild-command-create'
  | 'interaction-callback'
  | 'webhook-execute'
  | 'webhook-message-get'
  | 'webhook-message-edit'
  | 'webhook-message-delete';

/** A REST request after routing: path parameters (decoded), query and body. */
export interface RestRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: RequestBody;
  /**
   * When the request arrived: Discord judges deadlines (an interaction's 3 s) by it, not by how long
   * the fake took to read and check the body.
   */
  receivedAtMs: number;
}

/** What a route answers: a status and a JSON body (none for 204). */
export interface RestResult {
  status: number;
  body?: unknown;
}

/** One route of the REST API. */
export interface RestRoute {
  name: RestRouteName;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The path after `/api/v10`, with `:name` parameters, e.g. `/channels/:channelId/messages`. */
  pattern: string;
  /**
   * `bot` needs `Authorization: Bot <token>` and counts towards the global limit; `token` routes
   * (interaction callbacks, webhooks) carry their secret in the path instead and are exempt.
   */
  auth: 'bot' | 'token';
  bucket: BucketKind;
  /** The parameter the route's bucket is per (channel, guild or webhook token). */
  majorParameter?: string;
  handle(context: FakeDiscordContext, request: RestRequest): RestResult | Promise<RestResult>;
}

/** A 200 with a JSON body. */
export function ok(body: unknown): RestResult {
  return { status: 200, body };
}

/** A 204 without a body. */
export const noContent: RestResult = { status: 204 };
