import {
  type Attachment,
  type Embed,
  type Message,
  MessageReferenceType,
  type MessageSnapshot,
} from 'discord.js';
import { resolveMentions } from './resolve-mentions.ts';

/**
 * The message a forward carries, as Discord snapshotted it: a forward has no content of its own, its
 * `message_reference.type` is FORWARD (1) and the forwarded text, embeds and attachments are in
 * `message_snapshots`, of which there is one (resources/message.mdx, "Message Reference Content
 * Attribution", Forwards). Undefined for any other message.
 */
export function forwardedSnapshotOf(message: Message): MessageSnapshot | undefined {
  if (message.reference?.type !== MessageReferenceType.Forward) return undefined;
  return message.messageSnapshots?.first();
}

/** What an embed says in words: its title, description and fields. */
export function embedText(embed: Pick<Embed, 'title' | 'description' | 'fields'>): string {
  return [embed.title, embed.description, ...embed.fields.map((field) => `${field.name}: ${field.value}`)]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .join('\n');
}

/**
 * A message's words as a reader of the channel sees them: its text with names, and for a forward the
 * forwarded text and embeds marked as forwarded, so a forward never reads as empty.
 */
export function readableTextOf(
  message: Message,
  botUserId: string,
  { withEmbeds }: { withEmbeds: boolean },
): string {
  const own = ownWordsOf(message, botUserId, { withEmbeds });
  const snapshot = forwardedSnapshotOf(message);
  if (!snapshot) return own.join('\n');
  const forwarded = [resolveMentions(snapshot, botUserId), ...snapshot.embeds.map(embedText)]
    .filter(Boolean)
    .join('\n');
  const quoted = forwarded ? `\n> ${forwarded.replaceAll('\n', '\n> ')}` : ' (no text)';
  return [...own, `Forwarded message:${quoted}`].join('\n');
}

/** The message's own text and embeds, without what it forwards: the author's words alone. */
export function ownWordsOf(
  message: Message,
  botUserId: string,
  { withEmbeds }: { withEmbeds: boolean },
): string[] {
  return [resolveMentions(message, botUserId), ...(withEmbeds ? message.embeds.map(embedText) : [])].filter(
    Boolean,
  );
}

/** The message's attachments and, for a forward, the forwarded message's. */
export function attachmentsWithForwarded(message: Message): Attachment[] {
  const snapshot = forwardedSnapshotOf(message);
  return [...message.attachments.values(), ...(snapshot ? snapshot.attachments.values() : [])];
}
