import type { APIEmbed, APIMessageTopLevelComponent } from 'discord.js';
import { apiMember, apiMessage, channelTypeNumber } from './api-objects.ts';
import type { FakeAttachment } from './attachment-hosting.ts';
import { componentsV2Flag } from './components-v2-rules.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { messageDispatch } from './gateway-intents.ts';
import { type AllowedMentions, defaultAllowedMentions, resolveMentions } from './mentions.ts';
import type { FakeForward, FakeMessage } from './message-store.ts';
import { preciseNowMs } from './precise-time.ts';
import type { FakeChannel, FakeUser } from './world.ts';

/** Message flags the fake sets or reads. */
export const messageFlags = {
  ephemeral: 1 << 6,
  loading: 1 << 7,
  /** resources/message.mdx, "Message Flags": HAS_SNAPSHOT, "this message has a snapshot (via Message Forwarding)". */
  hasSnapshot: 1 << 14,
} as const;

/** The parts of a message that a create or an edit can set. */
export interface MessageContent {
  content?: string;
  embeds?: APIEmbed[];
  components?: APIMessageTopLevelComponent[];
  attachments?: FakeAttachment[];
  flags?: number;
  /** The request's `allowed_mentions`, when it had one. */
  allowedMentions?: AllowedMentions;
}

/** A new message: where, by whom, and what links it to a reply or an interaction. */
export interface NewMessage extends MessageContent {
  channel: FakeChannel;
  author: FakeUser;
  type?: number;
  replyToMessageId?: string | null;
  /** Users to list as mentioned in addition to the `<@id>` found in the content. */
  extraMentionIds?: readonly string[];
  /**
   * Which default applies without `allowed_mentions`: a bot's `message` (all types), a `webhook` or
   * interaction message (users only), or a `person` writing in Discord's app (everything counts).
   */
  mentionDefaults?: 'message' | 'webhook' | 'person';
  interactionId?: string | null;
  webhookId?: string | null;
  /** The message is a forward of another (message_reference type FORWARD). */
  forward?: FakeForward | null;
  /** An id of its own: a forum post's starter message has the post's id (topics/threads.mdx). */
  id?: string;
}

/** Stores a message, dispatches MESSAGE_CREATE (ephemeral ones excepted) and tells the change feed. */
export function createMessage(context: FakeDiscordContext, draft: NewMessage): FakeMessage {
  const atMs = preciseNowMs();
  const content = draft.content ?? '';
  const defaults = draft.mentionDefaults ?? 'message';
  const mentions = resolveMentions({
    world: context.world,
    channel: draft.channel,
    author: draft.author,
    content: mentionableText(content, draft),
    allowed: defaults === 'person' ? undefined : (draft.allowedMentions ?? defaultAllowedMentions(defaults)),
    // A person's reply pings (or not) through `extraMentionIds`, which the test decides.
    repliedAuthorId: defaults === 'person' ? null : repliedAuthorOf(context, draft.replyToMessageId ?? null),
  });
  const message: FakeMessage = {
    id: draft.id ?? context.ids.next(),
    channelId: draft.channel.id,
    guildId: draft.channel.guildId,
    author: draft.author,
    content,
    embeds: draft.embeds ?? [],
    components: draft.components ?? [],
    attachments: draft.attachments ?? [],
    flags: (draft.flags ?? 0) | (draft.forward ? messageFlags.hasSnapshot : 0),
    type: draft.type ?? (draft.replyToMessageId ? 19 : 0),
    createdAtMs: atMs,
    editedAtMs: null,
    editCount: 0,
    revisions: [{ content, atMs }],
    replyToMessageId: draft.replyToMessageId ?? null,
    forward: draft.forward ?? null,
    mentionIds: [...new Set([...mentions.userIds, ...(draft.extraMentionIds ?? [])])],
    mentionRoleIds: mentions.roleIds,
    mentionsEveryone: mentions.everyone,
    interactionId: draft.interactionId ?? null,
    webhookId: draft.webhookId ?? null,
  };
  context.messages.add(message);
  dispatchMessage(context, 'MESSAGE_CREATE', message);
  context.changes.emit({ type: 'message-create', message });
  return message;
}

/** Applies an edit, dispatches MESSAGE_UPDATE and tells the change feed. */
export function editMessage(
  context: FakeDiscordContext,
  message: FakeMessage,
  changes: MessageContent,
): FakeMessage {
  const atMs = preciseNowMs();
  if (changes.content !== undefined) {
    message.content = changes.content;
    // resources/message.mdx, "Edit Message": mentions are "reconstructed from scratch based on the
    // new content", with the edit's allowed_mentions or else the default ones.
    const mentions = resolveMentions({
      world: context.world,
      channel: context.world.requireChannel(message.channelId),
      author: message.author,
      content: mentionableText(changes.content, { ...message, ...changes }),
      allowed:
        changes.allowedMentions ?? defaultAllowedMentions(message.webhookId === null ? 'message' : 'webhook'),
      repliedAuthorId: repliedAuthorOf(context, message.replyToMessageId),
    });
    message.mentionIds = mentions.userIds;
    message.mentionRoleIds = mentions.roleIds;
    message.mentionsEveryone = mentions.everyone;
  }
  message.embeds = changes.embeds ?? message.embeds;
  message.components = changes.components ?? message.components;
  message.attachments = changes.attachments ?? message.attachments;
  message.flags = changes.flags ?? message.flags;
  message.editedAtMs = atMs;
  message.editCount += 1;
  message.revisions.push({ content: message.content, atMs });
  dispatchMessage(context, 'MESSAGE_UPDATE', message);
  context.changes.emit({ type: 'message-update', message });
  return message;
}

/**
 * The text whose mentions count: the content, and with IS_COMPONENTS_V2 the text displays, whose
 * "pingable mentions ... will ping" by the message's allowed_mentions (components/reference.mdx,
 * "Text Display"; resources/message.mdx, "Edit Message": with the flag, mentions are reconstructed
 * from the `components`).
 */
function mentionableText(content: string, message: Pick<MessageContent, 'components' | 'flags'>): string {
  if (((message.flags ?? 0) & componentsV2Flag) === 0) return content;
  const texts: string[] = [];
  const walk = (component: Record<string, unknown>) => {
    if (component.type === 10 && typeof component.content === 'string') texts.push(component.content);
    if (Array.isArray(component.components)) {
      for (const child of component.components as Record<string, unknown>[]) walk(child);
    }
  };
  for (const component of (message.components ?? []) as unknown as Record<string, unknown>[]) walk(component);
  return [content, ...texts].join('\n');
}

/** Removes a message, dispatches MESSAGE_DELETE and tells the change feed. */
export function deleteMessage(context: FakeDiscordContext, message: FakeMessage): void {
  context.messages.remove(message.id);
  if ((message.flags & messageFlags.ephemeral) === 0) {
    const data = {
      id: message.id,
      channel_id: message.channelId,
      ...(message.guildId === null ? {} : { guild_id: message.guildId }),
    };
    context.gateway.dispatch('MESSAGE_DELETE', () => data);
  }
  context.changes.emit({ type: 'message-delete', message });
}

/** The message as the API sends it, e.g. in a REST response. */
export function messageObject(context: FakeDiscordContext, message: FakeMessage) {
  return apiMessage(message, context.world, (id) => context.messages.get(id));
}

function dispatchMessage(context: FakeDiscordContext, eventName: string, message: FakeMessage): void {
  // Only the person who ran the command sees an ephemeral message; it never reaches the gateway.
  if ((message.flags & messageFlags.ephemeral) !== 0) {
    return;
  }
  const guild = message.guildId === null ? undefined : context.world.guilds.get(message.guildId);
  const channel = context.world.channels.get(message.channelId);
  // topics/threads.mdx: a private thread is seen by its members only, and "Clients will not be
  // informed of a thread through the gateway if they do not have permission to view that thread".
  if (channel !== undefined && !context.world.botCanView(channel)) {
    return;
  }
  // A server the bot is not in sends it nothing (topics/gateway.mdx: events of a guild go to its members' sessions).
  if (guild !== undefined && !guild.memberIds.includes(context.world.bot.id)) {
    return;
  }
  const data = {
    ...messageObject(context, message),
    // Without it discord.js cannot build the DM channel it has not seen yet (Partials.Channel).
    ...(channel === undefined ? {} : { channel_type: channelTypeNumber(channel) }),
    ...(guild === undefined
      ? {}
      : { guild_id: guild.id, member: withoutUser(apiMember(guild, message.author)) }),
  };
  const botId = context.world.bot.id;
  context.gateway.dispatch(
    eventName,
    messageDispatch(data, {
      isDirectMessage: message.guildId === null,
      concernsBot: message.author.id === botId || message.mentionIds.includes(botId),
    }),
  );
}

// Discord embeds the author's member in a guild message without repeating the user.
function withoutUser<Member extends { user?: unknown }>(member: Member): Omit<Member, 'user'> {
  const { user: _user, ...rest } = member;
  return rest;
}

function repliedAuthorOf(context: FakeDiscordContext, replyToMessageId: string | null): string | null {
  return replyToMessageId === null ? null : (context.messages.get(replyToMessageId)?.author.id ?? null);
}
