import type { Attachment, Client, Message } from 'discord.js';
import type { Actor } from '../../src/access/actor.ts';
import {
  conversationKeyOf,
  type DocumentAttachment,
  type ImageAttachment,
  type IncomingTurn,
  textOfWordlessMessage,
} from '../../src/conversation/turn.ts';
import { downloadAttachment } from '../../src/images/download-attachment.ts';
import { ImageLoadError } from '../../src/images/image-load-error.ts';
import { originsOf, type UrlPolicy } from '../../src/net/url-policy.ts';
import { discordMessageActorOf } from './discord-actor.ts';
import {
  attachmentsWithForwarded,
  forwardedSnapshotOf,
  ownWordsOf,
  readableTextOf,
} from './forwarded-message.ts';

const imageExtensions = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The conversation of a place on Discord: its channel, or its thread within the channel. An
 * interaction may arrive for a channel the client has not cached, so the channel is optional.
 */
export function discordConversationKey({
  guildId,
  channelId,
  channel,
}: {
  guildId: string | null;
  channelId: string;
  channel: Message['channel'] | null;
}): string {
  const isThread = channel !== null && 'isThread' in channel && channel.isThread();
  return conversationKeyOf({
    platform: 'discord',
    workspace: guildId ?? 'dm',
    channel: isThread && channel.parentId ? channel.parentId : channelId,
    thread: isThread ? channelId : undefined,
  });
}

/** The conversation a message belongs to. */
export function conversationKeyOfMessage(
  message: Pick<Message, 'channel' | 'channelId' | 'guildId'>,
): string {
  return discordConversationKey({
    guildId: message.guildId,
    channelId: message.channelId,
    channel: message.channel,
  });
}

/**
 * Where Discord serves attachments: its CDN (`https://cdn.discordapp.com/attachments/…`, and the
 * media proxy `media.discordapp.net` of `proxy_url`; discord-api-docs developers/reference.mdx,
 * "Image Formatting" and "Signed Attachment CDN URLs"), over https. The REST origin the operator
 * configured (`DISCORD_API_URL`: a proxy, or the fake in tests) counts as Discord's own too; no other
 * address is trusted because a message says so.
 */
export function discordAttachmentPolicy(client: Pick<Client, 'options'>): UrlPolicy {
  return {
    purpose: 'discord attachment',
    allowedHosts: ['cdn.discordapp.com', 'media.discordapp.net'],
    trustedOrigins: originsOf(client.options.rest?.api),
    requiresHttps: true,
  };
}

/** An image attachment that downloads only when the engine gets to it, refusing oversized files early. */
export function discordImageAttachment(
  attachment: Pick<Attachment, 'name' | 'url' | 'size'>,
  maxBytes: number,
  client: Pick<Client, 'options'>,
): ImageAttachment {
  return {
    name: attachment.name,
    publicUrl: attachment.url,
    load: async () => {
      if (attachment.size > maxBytes) {
        throw new ImageLoadError({
          message: 'attachment over the size limit',
          userMessage: `${attachment.name} is over the ${Math.round(maxBytes / (1024 * 1024))} MB limit, so I left it out.`,
        });
      }
      return downloadAttachment({
        url: attachment.url,
        name: attachment.name,
        maxBytes,
        policy: discordAttachmentPolicy(client),
      });
    },
  };
}

/** Any other attachment: read as a document (PDF, Word, Excel, CSV, text) when its turn comes. */
export function discordDocumentAttachment(
  attachment: Pick<Attachment, 'name' | 'url' | 'size' | 'contentType'>,
  maxBytes: number,
  client: Pick<Client, 'options'>,
): DocumentAttachment {
  return {
    name: attachment.name,
    ...(attachment.contentType ? { mimeType: attachment.contentType } : {}),
    load: async () => {
      if (attachment.size > maxBytes) {
        throw new ImageLoadError({
          message: 'attachment over the size limit',
          userMessage: `${attachment.name} is over the ${Math.round(maxBytes / (1024 * 1024))} MB limit for documents, so I left it out.`,
        });
      }
      return downloadAttachment({
        url: attachment.url,
        name: attachment.name,
        maxBytes,
        policy: discordAttachmentPolicy(client),
      });
    },
  };
}

/**
 * The turn for a message the bot answers: text with names, image attachments (checked later by their
 * bytes), and every other attachment as a document for the engine's reader; a forward brings the
 * forwarded message's text, embeds and attachments.
 */
export async function buildTurnFromMessage({
  message,
  botUserId,
  maxImageBytes,
  maxDocumentBytes,
  actor = discordMessageActorOf(message),
}: {
  message: Message;
  botUserId: string;
  maxImageBytes: number;
  maxDocumentBytes: number;
  /** The author as the door already made them (their roles and permissions are worked out once). */
  actor?: Actor;
}): Promise<IncomingTurn> {
  const images: ImageAttachment[] = [];
  const documents: DocumentAttachment[] = [];
  for (const attachment of attachmentsWithForwarded(message)) {
    const contentType = attachment.contentType ?? '';
    if (contentType.startsWith('image/') || imageExtensions.test(attachment.name)) {
      images.push(discordImageAttachment(attachment, maxImageBytes, message.client));
    } else {
      documents.push(discordDocumentAttachment(attachment, maxDocumentBytes, message.client));
    }
  }
  // A forward has no words of its own: what it says is the forwarded message's snapshot.
  const isForward = forwardedSnapshotOf(message) !== undefined;
  const text = readableTextOf(message, botUserId, { withEmbeds: isForward });
  const fallback = textOfWordlessMessage({ imageCount: images.length, documentCount: documents.length });
  return {
    conversationKey: conversationKeyOfMessage(message),
    author: { id: actor.id, name: actor.name },
    actor,
    text: text || fallback,
    images,
    documents,
    isAddressedToBot: !message.guild || message.mentions.users.has(botUserId),
    notices: [],
    sentAtMicros: sentAtMicrosOf(message.id),
    // Someone else wrote what is forwarded: only the forwarder's own words are theirs.
    ...(isForward ? { ownText: ownWordsOf(message, botUserId, { withEmbeds: true }).join('\n') } : {}),
  };
}

/**
 * When a message was sent, from its id: a snowflake's top bits are milliseconds since Discord's
 * epoch, and its low 12 bits count the ids made in that millisecond, which orders them within it
 * (https://discord.com/developers/docs/reference#snowflakes).
 */
export function sentAtMicrosOf(snowflake: string): number {
  const id = BigInt(snowflake);
  const discordEpochMs = 1_420_070_400_000n;
  const increment = Number(id & 0xfffn);
  return Number(((id >> 22n) + discordEpochMs) * 1000n) + Math.min(increment, 999);
}
