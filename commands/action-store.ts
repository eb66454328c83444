import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import { createImageStore, type ImageStore, storedImageRefSchema } from '../src/images/image-store.ts';

/**
 * What a button needs to do its job later, kept in the store under a short random token, because a
 * button id must be short (Discord custom_id: 100 characters) and must survive a restart.
 */
const chatPayloadSchema = z.object({
  kind: z.literal('chat'),
  conversationKey: z.string(),
  author: z.object({ id: z.string(), name: z.string() }),
  text: z.string(),
  /** The turn's images, kept once each in the image store rather than in every payload. */
  images: z.array(storedImageRefSchema).default([]),
  /** The turn's documents: their text is kept in the document store by hash, read again from there. */
  documents: z.array(z.object({ name: z.string(), documentHash: z.string() })).default([]),
  /** Payloads saved before the image store held the images themselves; read for their 7 days. */
  imageDataUris: z.array(z.string()).optional(),
  replyCreatedAt: z.string().optional(),
  /** When it was saved (ISO): the retention sweep removes it past its place's cutoff. */
  savedAt: z.iso.datetime().optional(),
});

/** A reference image for `image_input`: a link, or an image kept in the store (sent as `data:`). */
const referenceImageSchema = z.union([z.object({ link: z.string() }), storedImageRefSchema]);

/** What Vary may use of one drawn image, best first. */
const drawnImageSchema = z.object({
  /** The gateway's own link to the image, when it answered with links. */
  gatewayLink: z.string().optional(),
  /** The platform's public link to the posted file (Discord's CDN; signed, it expires). */
  postedLink: z.string().optional(),
  /** The bytes, kept when the image model takes `data:` URIs and there is no lasting link. */
  kept: storedImageRefSchema.optional(),
});

const imaginePayloadSchema = z.object({
  kind: z.literal('imagine'),
  conversationKey: z.string(),
  prompt: z.string(),
  count: z.number().int(),
  aspectRatio: z.string().optional(),
  outputFormat: z.enum(['png', 'jpg']),
  references: z.array(referenceImageSchema).default([]),
  drawnImages: z.array(drawnImageSchema).default([]),
  /** The older shape (links or data: URIs inline); read for the 7 days its buttons live. */
  referenceImages: z.array(z.string()).optional(),
  generatedImages: z.array(z.string()).optional(),
  /** Who asked for the drawing: /forget removes the payload and its kept images with their data. */
  askerId: z.string().optional(),
  savedAt: z.iso.datetime().optional(),
});

/** A Forget button of /memory: one note, or (without `noteId`) every note of the scope. */
const memoryPayloadSchema = z.object({
  kind: z.literal('memory'),
  conversationKey: z.string(),
  scope: z.enum(['person', 'place']),
  /** Whose notes: the person who ran /memory (only they may press it), or the place's. */
  ownerId: z.string(),
  noteId: z.string().optional(),
  savedAt: z.iso.datetime().optional(),
});

/**
 * A /forget waiting for its Confirm: whose data (`subjectId`), asked by whom (only they may
 * confirm), and where (an admin's request covers their own server or workspace only).
 */
const forgetPayloadSchema = z.object({
  kind: z.literal('forget'),
  conversationKey: z.string(),
  askerId: z.string(),
  subjectId: z.string(),
  platform: z.string(),
  /** Undefined: everywhere on the platform (a person forgetting themselves). */
  workspace: z.string().optional(),
  savedAt: z.iso.datetime().optional(),
});

const actionPayloadSchema = z.discriminatedUnion('kind', [
  chatPayloadSchema,
  imaginePayloadSchema,
  memoryPayloadSchema,
  forgetPayloadSchema,
]);

export type ActionPayload = z.infer<typeof actionPayloadSchema>;
export type ChatActionPayload = z.infer<typeof chatPayloadSchema>;
export type ImagineActionPayload = z.infer<typeof imaginePayloadSchema>;
export type MemoryActionPayload = z.infer<typeof memoryPayloadSchema>;
export type ForgetActionPayload = z.infer<typeof forgetPayloadSchema>;
export type ReferenceImage = z.infer<typeof referenceImageSchema>;
export type DrawnImage = z.infer<typeof drawnImageSchema>;

export interface ActionStore {
  /** Saves a payload and returns the token that names it in button ids; a given token is overwritten. */
  save(payload: z.input<typeof actionPayloadSchema>, options?: { token?: string }): Promise<string>;
  load(token: string): Promise<ActionPayload | undefined>;
  /** Deletes a payload: its buttons then answer that they expired (a /forget confirmed once). */
  remove(token: string): Promise<void>;
  /** The images payloads refer to, one copy each, living as long as the buttons. */
  readonly images: ImageStore;
}

/** Buttons older than this answer "this button has expired". */
export const actionLifetimeMs = 7 * 24 * 60 * 60 * 1000;

/** The default cap of the images kept for buttons (IMAGE_STORE_MAX_BYTES). */
const defaultMaxImageBytes = 256 * 1024 * 1024;

export function createActionStore({
  store,
  maxImageBytes = defaultMaxImageBytes,
  now = () => new Date(),
}: {
  store: Keyv;
  /** Most bytes of kept images; the oldest are evicted first. */
  maxImageBytes?: number;
  now?: () => Date;
}): ActionStore {
  return {
    images: createImageStore({ store, maxTotalBytes: maxImageBytes, lifetimeMs: actionLifetimeMs }),
    async save(payload, { token = randomBytes(9).toString('base64url') } = {}) {
      await store.set(token, { savedAt: now().toISOString(), ...payload }, actionLifetimeMs);
      return token;
    },
    async load(token) {
      const parsed = actionPayloadSchema.safeParse(await store.get(token));
      return parsed.success ? parsed.data : undefined;
    },
    async remove(token) {
      await store.delete(token);
    },
  };
}

/** The things a button can do. */
export type ActionVerb =
  | 'chat.stop'
  | 'chat.regenerate'
  | 'chat.continue'
  | 'imagine.regenerate'
  | 'imagine.vary'
  | 'chat.feedback'
  | 'tool.approve'
  | 'tool.deny'
  | 'memory.forget'
  | 'schedule.pause'
  | 'schedule.resume'
  | 'schedule.delete'
  | 'data.forget';

export const actionVerbs: readonly ActionVerb[] = [
  'chat.stop',
  'chat.regenerate',
  'chat.continue',
  'imagine.regenerate',
  'imagine.vary',
  // index 1: 👍, index 0: 👎.
  'chat.feedback',
  'tool.approve',
  'tool.deny',
  'memory.forget',
  // The token is the schedule's id.
  'schedule.pause',
  'schedule.resume',
  'schedule.delete',
  'data.forget',
];

/** Matches every id `encodeActionId` makes, and no other: for a platform that routes presses by id. */
export const actionIdPattern = /^parley:/;

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
