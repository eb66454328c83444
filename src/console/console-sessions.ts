import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Keyv from 'keyv';
import { z } from 'zod';
import { consolePersonSchema } from './console-person.ts';

const sessionSchema = z.object({
  person: consolePersonSchema,
  /** The token every form of this session carries: a POST without it is refused. */
  csrfToken: z.string(),
  expiresAtMs: z.number(),
});

/** One signed-in browser: who, the token its forms carry, and when it ends. */
export type ConsoleSession = z.infer<typeof sessionSchema> & { readonly id: string };

/**
 * Console sessions in parley's store (a keyv namespace), so every process of a bot shares them and a
 * restart signs nobody out. The id is 32 random bytes; the store keeps it only until it expires.
 */
export interface ConsoleSessions {
  start(person: ConsoleSession['person']): Promise<ConsoleSession>;
  /** The session, or undefined when unknown, expired or malformed. */
  find(id: string | undefined): Promise<ConsoleSession | undefined>;
  end(id: string): Promise<void>;
}

export function createConsoleSessions({
  store,
  lifetimeMs,
  now,
}: {
  store: Keyv;
  lifetimeMs: number;
  now: () => number;
}): ConsoleSessions {
  return {
    async start(person) {
      const id = randomBytes(32).toString('base64url');
      const session = {
        person,
        csrfToken: randomBytes(32).toString('base64url'),
        expiresAtMs: now() + lifetimeMs,
      };
      await store.set(id, session, lifetimeMs);
      return { id, ...session };
    },
    async find(id) {
      if (id === undefined || !/^[\w-]{20,64}$/.test(id)) return undefined;
      const parsed = sessionSchema.safeParse(await store.get(id));
      if (!parsed.success || parsed.data.expiresAtMs <= now()) return undefined;
      return { id, ...parsed.data };
    },
    async end(id) {
      await store.delete(id);
    },
  };
}

/** Whether a form's token is the session's, compared in constant time. */
export function isCsrfTokenOf(session: ConsoleSession, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
