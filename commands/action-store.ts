import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';

/**
 * What a button needs to do its job later, kept in the store under a short random token, because a
 * button id must be short (Discord custom_id: 100 characters) and must survive a restart.
 */
const chatPayloadSchema = z.object({
  kind: z.literal('chat'),
  conversationKey: z.string(),
  author: z.object({ id: z.string(), name: z.string() }),
  text: z.string(),
  imageDataUris: z.array(z.string()),
  replyCreatedAt: z.string().optional(),
});

const imaginePayloadSchema = z.object({
  kind: z.literal('imagine'),
  conversationKey: z.string(),
  prompt: z.string(),
  count: z.number().int(),
  aspectRatio: z.string().optional(),
  outputFormat: z.enum(['png', 'jpg']),
  referenceImages: z.array(z.string()),
  generatedImages: z.array(z.string()),
});

const actionPayloadSchema = z.discriminatedUnion('kind', [chatPayloadSchema, imaginePayloadSchema]);

export type ActionPayload = z.infer<typeof actionPayloadSchema>;
export type ChatActionPayload = z.infer<typeof chatPayloadSchema>;
export type ImagineActionPayload = z.infer<typeof imaginePayloadSchema>;

export interface ActionStore {
  /** Saves a payload and returns the token that names it in button ids; a given token is overwritten. */
  save(payload: ActionPayload, options?: { token?: string }): Promise<string>;
  load(token: string): Promise<ActionPayload | undefined>;
}

/** Buttons older than this answer "this button has expired". */
const actionLifetimeMs = 7 * 24 * 60 * 60 * 1000;

export function createActionStore({ store }: { store: Keyv }): ActionStore {
  return {
    async save(payload, { token = randomBytes(9).toString('base64url') } = {}) {
      await store.set(token, payload, actionLifetimeMs);
      return token;
    },
    async load(token) {
      const parsed = actionPayloadSchema.safeParse(await store.get(token));
      return parsed.success ? parsed.data : undefined;
    },
  };
}

/** The things a button can do. */
export type ActionVerb =
  | 'chat.stop'
  | 'chat.regenerate'
  | 'chat.continue'
  | 'imagine.regenerate'
  | 'imagine.vary';

const actionVerbs: readonly ActionVerb[] = [
  'chat.stop',
  'chat.regenerate',
  'chat.continue',
  'imagine.regenerate',
  'imagine.vary',
];

/** A button id: `parley:<verb>:<token>[:<index>]`, short enough for every platform. */
export function encodeActionId({
  verb,
  token,
  index,
}: {
  verb: ActionVerb;
  token: string;
  index?: number;
}): string {
  return ['parley', verb, token, ...(index === undefined ? [] : [String(index)])].join(':');
}

export function decodeActionId(
  id: string,
): { verb: ActionVerb; token: string; index: number | undefined } | undefined {
  const [prefix, verb, token, index] = id.split(':');
  if (prefix !== 'parley' || !token || !actionVerbs.includes(verb as ActionVerb)) return undefined;
  const parsedIndex = index === undefined ? undefined : Number.parseInt(index, 10);
  if (parsedIndex !== undefined && !Number.isInteger(parsedIndex)) return undefined;
  return { verb: verb as ActionVerb, token, index: parsedIndex };
}
