import { apiChannel } from './api-objects.ts';
import { DiscordApiError, errorCodes, unknownEntity } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { createMessage, deleteMessage, editMessage, messageFlags, messageObject } from './message-actions.ts';
import { emptyMessageError, isEmptyMessage, parseMessageDraft } from './message-draft.ts';
import type { FakeMessage } from './message-store.ts';
import { type BotPermission, hasPermission } from './permissions.ts';
import { jsonObject, type RequestBody } from './request-body.ts';
import { noContent, ok, type RestRoute } from './rest-route.ts';
import { type FakeChannel, isThreadOnly } from './world.ts';

/** Channels and their messages: what a bot that chats calls most. */
export const channelRoutes: RestRoute[] = [
  {
    name: 'channel',
    method: 'GET',
    pattern: '/channels/:channelId',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params }) {
      const channel = requireChannel(context, params.channelId);
      assertBotMay(context, channel, 'view-channel');
      return ok(apiChannel(channel, context.world));
    },
  },
  {
    name: 'message-create',
    method: 'POST',
    pattern: '/channels/:channelId/messages',
    auth: 'bot',
    bucket: 'message-create',
    majorParameter: 'channelId',
    handle(context, { params, body }) {
      const channel = requireChannel(context, params.channelId);
      // topics/threads.mdx, "Forums": "Messages cannot be sent directly in forum channels" (nor in
      // media channels, which behave the same); opcodes-and-status-codes.mdx, 40058 "Cannot send a
      // message in a forum channel".
      if (isThreadOnly(channel)) {
        throw new DiscordApiError({
          status: 400,
          code: errorCodes.cannotSendInForumChannel,
          message: 'Cannot send a message in a forum channel',
        });
      }
      assertBotMay(
        context,
        channel,
        channel.kind === 'thread' ? 'send-messages-in-threads' : 'send-messages',
      );
      if (body.files.size > 0) {
        assertBotMay(context, channel, 'attach-files');
      }
      // resources/message.mdx, "Create Message", Limitations: "When creating a message as a reply to
      // another message, the current user must have the READ_MESSAGE_HISTORY permission."
      if (isReply(body)) {
        assertBotMay(context, channel, 'read-message-history');
      }
      const draft = parseMessageDraft(context, { body, channel });
      if (isEmptyMessage(draft)) {
        throw emptyMessageError();
      }
      const message = createMessage(context, {
        ...draft,
        // Without Embed Links Discord accepts the message and silently drops its embeds: what bots
        // observe (topics/permissions.mdx only says links then are not embedded).
        embeds: botMay(context, channel, 'embed-links') ? draft.embeds : [],
        channel,
        author: context.world.bot,
      });
      return ok(messageObject(context, message));
    },
  },
  {
    name: 'message-edit',
    method: 'PATCH',
    pattern: '/channels/:channelId/messages/:messageId',
    auth: 'bot',
    bucket: 'message-edit',
    majorParameter: 'channelId',
    handle(context, { params, body }) {
      const channel = requireChannel(context, params.channelId);
      const message = requireMessage(context, channel, params.messageId);
      // resources/message.mdx, "Edit Message": only the author edits content
      // (opcodes-and-status-codes.mdx, 50005 "Cannot edit a message authored by another user").
      if (message.author.id !== context.world.bot.id) {
        throw new DiscordApiError({
          status: 403,
          code: errorCodes.cannotEditOtherUsersMessage,
          message: 'Cannot edit a message authored by another user',
        });
      }
      const draft = parseMessageDraft(context, { body, channel, existing: message });
      if (isEmptyMessage({ ...message, ...draft })) {
        throw emptyMessageError();
      }
      return ok(messageObject(context, editMessage(context, message, draft)));
    },
  },
  {
    name: 'message-delete',
    method: 'DELETE',
    pattern: '/channels/:channelId/messages/:messageId',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params }) {
      const channel = requireChannel(context, params.channelId);
      deleteMessage(context, requireMessage(context, channel, params.messageId));
      return noContent;
    },
  },
  {
    name: 'message-get',
    method: 'GET',
    pattern: '/channels/:channelId/messages/:messageId',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    // "If operating on a guild channel, this endpoint requires the READ_MESSAGE_HISTORY permission"
    // (discord-api-docs resources/message.mdx, "Get Channel Message").
    handle(context, { params }) {
      const channel = requireChannel(context, params.channelId);
      assertBotMay(context, channel, 'read-message-history');
      return ok(messageObject(context, requireMessage(context, channel, params.messageId)));
    },
  },
  {
    name: 'message-list',
    method: 'GET',
    pattern: '/channels/:channelId/messages',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params, query }) {
      const channel = requireChannel(context, params.channelId);
      assertBotMay(context, channel, 'view-channel');
      // resources/message.mdx, "Get Channel Messages": "If the current user is missing the
      // READ_MESSAGE_HISTORY permission in the channel, then no messages will be returned."
      if (!botMay(context, channel, 'read-message-history')) {
        return ok([]);
      }
      return ok(listMessages(context, channel, query).map((message) => messageObject(context, message)));
    },
  },
  {
    name: 'typing',
    method: 'POST',
    pattern: '/channels/:channelId/typing',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params }) {
      requireChannel(context, params.channelId);
      return noContent;
    },
  },
];

/** The channel, or Discord's 404 10003. */
export function requireChannel(context: FakeDiscordContext, channelId: string | undefined): FakeChannel {
  const channel = channelId === undefined ? undefined : context.world.channels.get(channelId);
  if (channel === undefined) {
    throw unknownEntity('Channel', errorCodes.unknownChannel);
  }
  return channel;
}

function requireMessage(
  context: FakeDiscordContext,
  channel: FakeChannel,
  messageId: string | undefined,
): FakeMessage {
  const message = messageId === undefined ? undefined : context.messages.get(messageId);
  if (
    message === undefined ||
    message.channelId !== channel.id ||
    (message.flags & messageFlags.ephemeral) !== 0
  ) {
    throw unknownEntity('Message', errorCodes.unknownMessage);
  }
  return message;
}

function isReply(body: RequestBody): boolean {
  const reference = jsonObject(body).message_reference;
  return typeof reference === 'object' && reference !== null;
}

function botMay(context: FakeDiscordContext, channel: FakeChannel, permission: BotPermission): boolean {
  return hasPermission(context.world.botPermissionsIn(channel), permission);
}

/**
 * topics/permissions.mdx: without VIEW_CHANNEL nothing else counts (403, 50001 Missing Access);
 * otherwise a missing permission is 403, 50013. Create Message needs SEND_MESSAGES, or in a thread
 * SEND_MESSAGES_IN_THREADS ("Inherited Permissions (Threads)"); files need ATTACH_FILES.
 */
function assertBotMay(context: FakeDiscordContext, channel: FakeChannel, permission: BotPermission): void {
  if (!botMay(context, channel, 'view-channel')) {
    throw new DiscordApiError({ status: 403, code: errorCodes.missingAccess, message: 'Missing Access' });
  }
  if (!botMay(context, channel, permission)) {
    throw new DiscordApiError({
      status: 403,
      code: errorCodes.missingPermissions,
      message: 'Missing Permissions',
    });
  }
}

/**
 * `GET /channels/:id/messages`: newest first, with `limit` (1–100, default 50), `before`, `after`
 * (resources/message.mdx, "Get Channel Messages").
 */
function listMessages(
  context: FakeDiscordContext,
  channel: FakeChannel,
  query: URLSearchParams,
): FakeMessage[] {
  const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 50) || 50));
  const before = query.get('before');
  const after = query.get('after');
  const visible = context.messages
    .inChannel(channel.id)
    .filter((message) => (message.flags & messageFlags.ephemeral) === 0)
    .filter((message) => before === null || BigInt(message.id) < BigInt(before))
    .filter((message) => after === null || BigInt(message.id) > BigInt(after));
  // `after` pages forwards from the oldest; otherwise the newest come first.
  const page = after === null ? visible.slice(-limit) : visible.slice(0, limit);
  return page.reverse();
}
