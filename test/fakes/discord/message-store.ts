import type { APIEmbed, APIMessageTopLevelComponent } from 'discord.js';
import type { FakeAttachment } from './attachment-hosting.ts';
import type { FakeUser } from './world.ts';

/** One version of a message's text, kept so tests can follow how a streamed reply grew. */
export interface MessageRevision {
  content: string;
  /** When the fake stored this version, in epoch milliseconds with sub-millisecond precision. */
  atMs: number;
}

/** A message as the fake stores it. Embeds and components are kept as the JSON the bot sent. */
export interface FakeMessage {
  id: string;
  channelId: string;
  guildId: string | null;
  author: FakeUser;
  content: string;
  embeds: APIEmbed[];
  components: APIMessageTopLevelComponent[];
  attachments: FakeAttachment[];
  /** Discord's message flags bitfield (64 ephemeral, 128 loading). */
  flags: number;
  /** Discord's message type: 0 default, 19 reply, 20 slash command response. */
  type: number;
  createdAtMs: number;
  /** `null` until the first edit. */
  editedAtMs: number | null;
  /** How many times the message was edited. */
  editCount: number;
  /** Every version of the content, the first one included. */
  revisions: MessageRevision[];
  replyToMessageId: string | null;
  /** What a forward carries: the message it points to, as it was when forwarded. `null` otherwise. */
  forward: FakeForward | null;
  /**
   * Users the message notifies: `<@id>` in the content (or named by the test) that its
   * `allowed_mentions` let through, and the replied-to author when it pings them.
   */
  mentionIds: string[];
  /** Roles the message notifies (`<@&id>`, allowed and mentionable). */
  mentionRoleIds: string[];
  /** Whether `@everyone`/`@here` in it notifies anyone. */
  mentionsEveryone: boolean;
  /** The interaction this message answers (its original response or a follow-up). */
  interactionId: string | null;
  /** Set on messages sent through an interaction webhook: the application id. */
  webhookId: string | null;
}

/**
 * A forwarded message's reference and snapshot (resources/message.mdx, "Message Reference Content
 * Attribution", Forwards): the snapshot is taken when the forward is made and never changes, and
 * holds only `type`, `content`, `embeds`, `attachments`, `timestamp`, `edited_timestamp`, `flags`,
 * `mentions`, `mention_roles`, stickers and `components` ("Message Snapshot Structure"); no author.
 */
export interface FakeForward {
  messageId: string;
  channelId: string;
  guildId: string | null;
  snapshot: {
    type: number;
    content: string;
    embeds: APIEmbed[];
    attachments: FakeAttachment[];
    createdAtMs: number;
    editedAtMs: number | null;
    flags: number;
    mentionIds: string[];
    mentionRoleIds: string[];
  };
}

/** Messages by channel, in the order they were created. */
export interface MessageStore {
  add(message: FakeMessage): void;
  get(messageId: string): FakeMessage | undefined;
  /** The messages of a channel, oldest first. */
  inChannel(channelId: string): FakeMessage[];
  remove(messageId: string): FakeMessage | undefined;
  clear(): void;
}

/** Creates an empty message store. */
export function createMessageStore(): MessageStore {
  const messages = new Map<string, FakeMessage>();
  const idsByChannel = new Map<string, string[]>();

  return {
    add(message) {
      messages.set(message.id, message);
      const channelIds = idsByChannel.get(message.channelId) ?? [];
      channelIds.push(message.id);
      idsByChannel.set(message.channelId, channelIds);
    },
    get(messageId) {
      return messages.get(messageId);
    },
    inChannel(channelId) {
      const found: FakeMessage[] = [];
      for (const id of idsByChannel.get(channelId) ?? []) {
        const message = messages.get(id);
        if (message !== undefined) {
          found.push(message);
        }
      }
      return found;
    },
    remove(messageId) {
      const message = messages.get(messageId);
      if (message === undefined) {
        return undefined;
      }
      messages.delete(messageId);
      const channelIds = idsByChannel.get(message.channelId) ?? [];
      idsByChannel.set(
        message.channelId,
        channelIds.filter((id) => id !== messageId),
      );
      return message;
    },
    clear() {
      messages.clear();
      idsByChannel.clear();
    },
  };
}
