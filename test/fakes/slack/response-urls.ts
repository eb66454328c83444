import { randomBytes } from 'node:crypto';

/** What a `response_url` belongs to: the command's or action's channel, and the message clicked. */
export interface ResponseUrlTarget {
  kind: 'commands' | 'actions';
  channel: string;
  user: string;
  /** For an action: the message with the button, which `replace_original` replaces. */
  messageTs?: string;
  threadTs?: string;
}

/** One POST an app made to a `response_url`. */
export interface ResponseUrlPost {
  url: string;
  target: ResponseUrlTarget;
  /** The JSON body, e.g. `{ text, response_type: 'in_channel', replace_original }`. */
  body: Record<string, unknown>;
  /** The HTTP status the fake answered: 200, or 404 once the URL is used up or expired. */
  status: number;
  atMs: number;
}

/** A response URL with what it belongs to and how often it was used. */
export interface ResponseUrl {
  url: string;
  target: ResponseUrlTarget;
  useCount: number;
  /** `Date.now()` when it was handed out; it works for `lifetimeMs` from then. */
  createdAtMs: number;
}

/** The response URLs the fake handed out with commands and actions. */
export interface ResponseUrlStore {
  create(target: ResponseUrlTarget): string;
  /** By the path part of the URL, e.g. `/commands/T…/123/abc`. */
  byPath(path: string): ResponseUrl | undefined;
  /** Whether the URL is past its lifetime. */
  isExpired(responseUrl: ResponseUrl): boolean;
  /** Ages every URL handed out so far past its lifetime, as if 30 minutes had passed. */
  expireAll(): void;
  readonly posts: ResponseUrlPost[];
  clear(): void;
}

/**
 * Slack lets an app use a response URL up to five times within 30 minutes ("Handling user
 * interaction", docs.slack.dev/interactivity/handling-user-interaction#message_responses).
 */
export const maxResponseUrlUses = 5;
export const responseUrlLifetimeMs = 30 * 60_000;

/** Creates the store; URLs point at `origin()`. */
export function createResponseUrlStore(options: {
  origin: () => string;
  teamId: string;
  lifetimeMs?: number;
}): ResponseUrlStore {
  const lifetimeMs = options.lifetimeMs ?? responseUrlLifetimeMs;
  const urls = new Map<string, ResponseUrl>();
  const posts: ResponseUrlPost[] = [];
  let counter = 0;

  return {
    create(target) {
      counter += 1;
      // Shaped like Slack's `https://hooks.slack.com/commands/T…/<id>/<secret>`.
      const path = `/${target.kind}/${options.teamId}/${Date.now()}${counter}/${randomBytes(12).toString('hex')}`;
      const url = `${options.origin()}${path}`;
      urls.set(path, { url, target, useCount: 0, createdAtMs: Date.now() });
      return url;
    },
    byPath: (path) => urls.get(path),
    isExpired: (responseUrl) => Date.now() - responseUrl.createdAtMs >= lifetimeMs,
    expireAll() {
      for (const responseUrl of urls.values()) responseUrl.createdAtMs = Date.now() - lifetimeMs;
    },
    posts,
    clear() {
      urls.clear();
      posts.length = 0;
    },
  };
}
