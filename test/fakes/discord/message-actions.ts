import type { APIEmbed, APIMessageTopLevelComponent } from 'discord.js';
import { apiMember, apiMessage, channelTypeNumber } from './api-objects.ts';
import type { FakeAttachment } from './attachment-hosting.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { messageDispatch } from './gateway-intents.ts';
import type { FakeMessage } from './message-store.ts';
import { preciseNowMs } from './precise-time.ts';
import type { FakeChannel, FakeUser } from './world.ts';

/** Message flags the fake sets or reads. */
export const messageFlags = {
  ephemeral: 1 << 6,
  loading: 1 << 7,
} as const;

/** The parts of a message that a create or an edit can set. */
export interface MessageContent {
  content?: string;
  embeds?: APIEmbed[];
  components?: APIMessageTopLevelComponent[];
  attachments?: FakeAttachment[];
  flags?: number;
}

/** A new message: where, by whom, and what links it to a reply or an interaction. */
export interface NewMessage extends MessageContent {
  channel: FakeChannel;
  author: FakeUser;
  type?: number;
  replyToMessageId?: string | null;
  /** Users to list as mentioned in addition to the `<@id>` found in the content. */
  extraMentionIds?: readonly string[];
  interactionId?: string | null;
  webhookId?: string | null;
}

/** Stores a message, dispatches MESSAGE_CREATE (ephemeral ones excepted) and tells the change feed. */
export function createMessage(context: FakeDiscordContext, draft: NewMessage): FakeMessage {
  const atMs = preciseNowMs();
  const content = draft.content ?? '';
  const message: FakeMessage = {
    id: context.ids.next(),
    channelId: draft.channel.id,
    guildId: draft.channel.guildId,
    author: draft.author,
    content,
    embeds: draft.embeds ?? [],
    components: draft.components ?? [],
    attachments: draft.attachments ?? [],
    flags: draft.flags ?? 0,
    type: draft.type ?? (draft.replyToMessageId ? 19 : 0),
    createdAtMs: atMs,
    editedAtMs: null,
    editCount: 0,
    revisions: [{ content, atMs }],
    replyToMessageId: draft.replyToMessageId ?? null,
    mentionIds: mentionedUserIds(context, content, draft.extraMentionIds ?? []),
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
    message.mentionIds = mentionedUserIds(context, changes.content, []);
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
  const data = {
    ...messageObject(context, message),
    // Without it discord.js cannot build the DM channel it has not seen yet (Partials.Channel).
    ...(channel === undefined ? {} : { channel_type: channelTypeNumber(channel.kind) }),
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

function mentionedUserIds(
  context: FakeDiscordContext,
  content: string,
  extraIds: readonly string[],
): string[] {
  const ids = new Set<string>();
  for (const match of content.matchAll(/<@!?(\d{17,20})>/g)) {
    const id = match[1];
    if (id !== undefined && context.world.users.has(id)) {
      ids.add(id);
    }
  }
  for (const id of extraIds) {
    ids.add(id);
  }
  return [...ids];
}
