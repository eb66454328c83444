import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type Keyv from 'keyv';
import { z } from 'zod';
import type { AtRestEncryption } from '../secrets/encryption-at-rest.ts';

/** How long a Connect link, and the authorization it starts, may wait for the person. */
export const connectLinkLifetimeMs = 10 * 60_000;

const ownerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('person'), platform: z.string(), userId: z.string() }),
  z.object({ kind: z.literal('place'), platform: z.string(), workspace: z.string() }),
]);

const authorizationSchema = z.object({
  state: z.string(),
  server: z.string(),
  owner: ownerSchema,
  /** Who asked for the link: the only one whose connection it makes. */
  person: z.object({ id: z.string(), name: z.string() }),
  conversationKey: z.string(),
  codeVerifier: z.string(),
  authorizationUrl: z.string(),
  /** SHA-256 of the cookie the browser that opened the link was given; the callback must bring it. */
  browserHash: z.string().optional(),
  expiresAtMs: z.number(),
});

/** An authorization waiting for its callback: who, which server, and the SDK's PKCE verifier. */
export type PendingConnection = z.infer<typeof authorizationSchema>;

/**
 * The single-use links and the authorizations they start, shared by every parley process through
 * the store: a link is taken (deleted) when opened, an authorization when its callback arrives, so
 * neither works twice. An authorization holds its PKCE verifier, so it is sealed like the tokens.
 */
export interface ConnectLinks {
  /** Keeps the authorization and returns the id of its link. */
  create(pending: Omit<PendingConnection, 'browserHash' | 'expiresAtMs'>, nowMs: number): Promise<string>;
  /** The server a link would connect, without using it up; undefined when used or expired. */
  peek(linkId: string, nowMs: number): Promise<string | undefined>;
  /**
   * The link opened: the authorization, bound now to a new browser secret (set as a cookie), or
   * undefined when the link was used or has expired.
   */
  open(
    linkId: string,
    nowMs: number,
  ): Promise<{ pending: PendingConnection; browserSecret: string } | undefined>;
  /**
   * The callback: the authorization of `state`, taken so it cannot be replayed; `isSameBrowser`
   * says whether the callback came with the cookie of the browser that opened its link.
   */
  take(
    state: string,
    browserSecret: string | undefined,
    nowMs: number,
  ): Promise<{ pending: PendingConnection; isSameBrowser: boolean } | undefined>;
}

export function createConnectLinks({
  store,
  encryption,
}: {
  store: Keyv;
  encryption: AtRestEncryption;
}): ConnectLinks {
  const save = (pending: PendingConnection, nowMs: number) => {
    const key = `authorization:${pending.state}`;
    return store.set(
      key,
      encryption.seal({ plaintext: JSON.stringify(pending), context: key }),
      Math.max(1, pending.expiresAtMs - nowMs),
    );
  };
  const read = async (state: string, nowMs: number): Promise<PendingConnection | undefined> => {
    const key = `authorization:${state}`;
    const sealed: unknown = await store.get(key);
    if (typeof sealed !== 'string') return undefined;
    const parsed = authorizationSchema.safeParse(JSON.parse(encryption.open({ sealed, context: key })));
    return parsed.success && parsed.data.expiresAtMs > nowMs ? parsed.data : undefined;
  };
  return {
    async create(fields, nowMs) {
      const pending = { ...fields, expiresAtMs: nowMs + connectLinkLifetimeMs };
      await save(pending, nowMs);
      const linkId = randomToken();
      await store.set(`link:${linkId}`, pending.state, connectLinkLifetimeMs);
      return linkId;
    },
    async peek(linkId, nowMs) {
      if (!/^[A-Za-z0-9_-]{20,64}$/.test(linkId)) return undefined;
      const state: unknown = await store.get(`link:${linkId}`);
      if (typeof state !== 'string') return undefined;
      return (await read(state, nowMs))?.server;
    },
    async open(linkId, nowMs) {
      if (!/^[A-Za-z0-9_-]{20,64}$/.test(linkId)) return undefined;
      const state: unknown = await store.get(`link:${linkId}`);
      // Whoever deletes it first has it: a second opening finds it gone, in any process.
      if (typeof state !== 'string' || !(await store.delete(`link:${linkId}`))) return undefined;
      const pending = await read(state, nowMs);
      if (!pending) return undefined;
      const browserSecret = randomToken();
      await save({ ...pending, browserHash: hashOf(browserSecret) }, nowMs);
      return { pending, browserSecret };
    },
    async take(state, browserSecret, nowMs) {
      if (!/^[A-Za-z0-9_-]{20,128}$/.test(state)) return undefined;
      const pending = await read(state, nowMs);
      if (!pending || !(await store.delete(`authorization:${state}`))) return undefined;
      const isSameBrowser =
        pending.browserHash !== undefined &&
        browserSecret !== undefined &&
        timingSafeEqual(Buffer.from(pending.browserHash), Buffer.from(hashOf(browserSecret)));
      return { pending, isSameBrowser };
    },
  };
}

/** 32 random bytes, base64url: a link id, an OAuth state, a browser secret. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
