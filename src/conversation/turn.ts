import { z } from 'zod';
import type { Actor } from '../access/actor.ts';

/** A conversation is one Discord channel or thread, one Slack channel or thread, one terminal. */
export type ConversationKey = string;

/** Builds a key of the form `platform:workspace:channel[:thread]`. */
export function conversationKeyOf(parts: {
  platform: string;
  workspace: string;
  channel: string;
  thread?: string | undefined;
}): ConversationKey {
  const segments = [parts.platform, parts.workspace, parts.channel, ...(parts.thread ? [parts.thread] : [])];
  return segments.map((segment) => segment.replaceAll(':', '_')).join(':');
}

/** Where a conversation takes place: its platform, server or workspace, and channel (a thread's parent). */
export interface ConversationPlace {
  readonly platform: string;
  readonly workspace: string;
  readonly channel: string;
}

/** The place of a key `conversationKeyOf` made; the thread, if any, belongs to its channel. */
export function placeOfConversation(key: ConversationKey): ConversationPlace {
  const [platform = '', workspace = '', channel = ''] = key.split(':');
  return { platform, workspace, channel };
}

/** An image a person attached; the engine loads it only when it is that turn's time to be answered. */
export interface ImageAttachment {
  readonly name: string;
  /**
   * A link anyone can fetch (Discord's CDN), when the platform has one. The image model's
   * `image_input` takes links, so a reference image with a public link is sent as that link.
   */
  readonly publicUrl?: string;
  /** Loads the bytes (a download with the platform's credentials, or a file read). */
  load(): Promise<Uint8Array>;
}

/**
 * A file a person attached (or a link they shared) that is read as a document: PDF, Word, Excel,
 * CSV, text. The engine reads it only when it is that turn's time to be answered.
 */
export interface DocumentAttachment {
  readonly name: string;
  /** What the platform says the file is; the bytes decide, this only tells CSV from other text. */
  readonly mimeType?: string;
  /** The link it came from, when a person shared a link. */
  readonly sourceUrl?: string;
  /** Its text is kept already under this hash (Regenerate): nothing is downloaded or parsed. */
  readonly keptHash?: string;
  /** Loads the bytes (a download with the platform's credentials, or a file read). */
  load(): Promise<Uint8Array>;
}

/** What stands for the text of a message that has none, so the model knows what was sent. */
export function textOfWordlessMessage({
  imageCount,
  documentCount,
}: {
  imageCount: number;
  documentCount: number;
}): string {
  if (imageCount > 0) return '(sent an image)';
  return documentCount > 0 ? '(sent a file)' : '(mentioned you without a message)';
}

/** What an adapter hands the engine for one message a person wrote to the bot. */
export interface IncomingTurn {
  readonly conversationKey: ConversationKey;
  /** Who wrote the text (named to the model as its author). */
  readonly author: { readonly id: string; readonly name: string };
  /**
   * Who asks for this reply: access decides on them and their budgets pay. The author, for a
   * message; whoever pressed Regenerate or Continue, for a button.
   */
  readonly actor: Actor;
  /** The text with platform mentions already resolved to names. */
  readonly text: string;
  readonly images: readonly ImageAttachment[];
  /** Files read as documents (PDF, Word, Excel, CSV, text). */
  readonly documents?: readonly DocumentAttachment[];
  /**
   * The person addressed the bot directly (a mention, a DM, a command), rather than it answering
   * every message of a channel; `LINK_READING=mention-only` reads links only then. Default true.
   */
  readonly isAddressedToBot?: boolean;
  /** Search the web before answering (`/search`), when search is configured. */
  readonly isSearchForced?: boolean;
  /** What the adapter could not pass on (an unreadable attachment, say), for the person to see. */
  readonly notices?: readonly string[];
  /**
   * When the platform says the message was sent, in microseconds since the epoch (a Discord
   * snowflake's time, a Slack `ts`): several processes answer a conversation's turns in this order,
   * whichever of them received each turn first.
   */
  readonly sentAtMicros?: number;
  /**
   * What the author wrote themself, when `text` also carries other people's words (the message
   * they asked about, a forward). What parley keeps about the person (the memory extraction) reads
   * only this; absent, all of `text` is theirs.
   */
  readonly ownText?: string;
}

const usageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
});

const imageReferenceSchema = z.object({
  name: z.string(),
  mimeType: z.string(),
  byteLength: z.number(),
});

/** A document of a turn as history keeps it: its extracted text lives in the document store. */
const documentReferenceSchema = z.object({
  name: z.string(),
  documentHash: z.string(),
  /** `PDF, 12 pages`: what it is, for the placeholder an older turn shows the model. */
  description: z.string(),
});

export const storedTurnSchema = z.object({
  role: z.enum(['user', 'assistant']),
  authorId: z.string(),
  authorName: z.string(),
  text: z.string(),
  images: z.array(imageReferenceSchema).default([]),
  /** Absent on turns without documents (and on turns kept before documents were read). */
  documents: z.array(documentReferenceSchema).optional(),
  model: z.string().optional(),
  usage: usageSchema.optional(),
  /** The reply broke off (error or Stop); `text` is what the person saw. */
  isInterrupted: z.boolean().optional(),
  createdAt: z.iso.datetime(),
});

/** One turn as kept in history: images are kept as references, never as bytes. */
export type StoredTurn = z.infer<typeof storedTurnSchema>;
export type ImageReference = z.infer<typeof imageReferenceSchema>;
export type DocumentReference = z.infer<typeof documentReferenceSchema>;
