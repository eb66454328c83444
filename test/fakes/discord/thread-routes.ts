import { apiChannel } from './api-objects.ts';
import { requireChannel } from './channel-routes.ts';
import { DiscordApiError, errorCodes, invalidFormBody, unknownEntity } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { guildsDispatch } from './gateway-intents.ts';
import { createMessage, messageObject } from './message-actions.ts';
import { emptyMessageError, isEmptyMessage, parseMessageDraft } from './message-draft.ts';
import { characterCount } from './message-limits.ts';
import { type BotPermission, hasPermission } from './permissions.ts';
import { preciseNowMs } from './precise-time.ts';
import { jsonObject } from './request-body.ts';
import { ok, type RestRoute } from './rest-route.ts';
import { type FakeChannel, isThreadOnly } from './world.ts';

/**
 * resources/channel.mdx, "Start Thread from Message" and "Modify Channel", JSON Params (Thread):
 * `auto_archive_duration` "can be set to: 60, 1440, 4320, 10080".
 */
export const autoArchiveMinutes = [60, 1440, 4320, 10080] as const;

/**
 * A channel's name may change twice per 10 minutes. Discord does not document it ("we do not
 * typically document rate limits", discord-api-docs pull 2760) but answers the third rename with a
 * 429 whose `retry_after` runs to the end of the 10 minutes while its `X-RateLimit-*` headers still
 * show the ordinary bucket (discord-api-docs issue 1900, "Undocumented channel rename rate limit").
 */
export const threadRenameLimit = { renames: 2, windowMs: 10 * 60 * 1000 } as const;

/**
 * resources/channel.mdx, "Modify Channel", JSON Params (Thread): `applied_tags` is "limited to 5".
 */
export const appliedTagsLimit = 5;

/** Starting a thread from a message or a post in a forum or media channel, and renaming a thread. */
export const threadRoutes: RestRoute[] = [
  {
    name: 'thread-in-forum',
    method: 'POST',
    pattern: '/channels/:channelId/threads',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params, body }) {
      const forum = requireChannel(context, params.channelId);
      // The same path starts a thread without a message in a text channel ("Start Thread without
      // Message"), which parley never calls: the fake models only posts.
      if (!isThreadOnly(forum)) {
        throw new Error('fake discord: Start Thread without Message is not modelled');
      }
      // resources/channel.mdx, "Start Thread in Forum or Media Channel": "The current user must have
      // the SEND_MESSAGES permission (CREATE_PUBLIC_THREADS is ignored)".
      assertBotMay(context, forum, 'send-messages');
      const json = jsonObject(body);
      const archiveMinutes = json.auto_archive_duration ?? forum.autoArchiveMinutes;
      assertThreadFields({ name: json.name, autoArchive: archiveMinutes });
      // Same section: `message` has no `?` in the JSON/Form Params, and topics/threads.mdx,
      // "Creating Threads in Forum and Media Channels", "requires you to pass parameters for both a
      // thread *and* a message".
      const starter = json.message;
      if (typeof starter !== 'object' || starter === null || Array.isArray(starter)) {
        throw invalidFormBody([
          { path: ['message'], error: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' } },
        ]);
      }
      const appliedTagIds = assertAppliedTags(context, forum, json.applied_tags);
      const thread = context.world.addThread({
        parentId: forum.id,
        name: String(json.name),
        id: context.ids.next(),
        ownerId: context.world.bot.id,
        autoArchiveMinutes: Number(archiveMinutes),
        memberIds: [context.world.bot.id],
        appliedTagIds,
      });
      let draft: ReturnType<typeof parseMessageDraft>;
      try {
        // The message params are those of Create Message, nested under `message`; files stay parts
        // of the multipart body (`files[n]`).
        draft = parseMessageDraft(context, { body: { ...body, json: starter }, channel: thread });
        if (isEmptyMessage(draft)) throw emptyMessageError();
      } catch (error) {
        context.world.channels.delete(thread.id);
        throw error;
      }
      // "Fires a Thread Create and Message Create Gateway event"; topics/threads.mdx: "a message is
      // created that has the same ID as the thread".
      context.gateway.dispatch(
        'THREAD_CREATE',
        guildsDispatch({ ...apiChannel(thread, context.world), newly_created: true }),
      );
      const message = createMessage(context, {
        ...draft,
        id: thread.id,
        channel: thread,
        author: context.world.bot,
      });
      // "Returns a channel, with a nested message object".
      return ok({ ...apiChannel(thread, context.world), message: messageObject(context, message) });
    },
  },
  {
    name: 'thread-from-message',
    method: 'POST',
    pattern: '/channels/:channelId/messages/:messageId/threads',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params, body }) {
      const channel = requireChannel(context, params.channelId);
      // "When called on a GUILD_TEXT channel, creates a PUBLIC_THREAD"; threads and DMs have no
      // threads of their own (opcodes-and-status-codes.mdx, 50024).
      if (channel.kind !== 'text') {
        throw new DiscordApiError({
          status: 400,
          code: errorCodes.invalidChannelType,
          message: 'Cannot execute action on this channel type',
        });
      }
      // topics/permissions.mdx, CREATE_PUBLIC_THREADS: "Allows for creating public and announcement threads".
      assertBotMay(context, channel, 'create-public-threads');
      const message = context.messages.get(params.messageId ?? '');
      if (message === undefined || message.channelId !== channel.id) {
        throw unknownEntity('Message', errorCodes.unknownMessage);
      }
      // "The id of the created thread will be the same as the id of the source message, and as such
      // a message can only have a single thread created from it" (160004).
      if (context.world.channels.has(message.id)) {
        throw new DiscordApiError({
          status: 400,
          code: errorCodes.threadAlreadyCreated,
          message: 'A thread has already been created for this message',
        });
      }
      const json = jsonObject(body);
      const archiveMinutes = json.auto_archive_duration ?? channel.autoArchiveMinutes;
      assertThreadFields({ name: json.name, autoArchive: archiveMinutes });
      const thread = context.world.addThread({
        parentId: channel.id,
        name: String(json.name),
        id: message.id,
        ownerId: context.world.bot.id,
        autoArchiveMinutes: Number(archiveMinutes),
        // topics/threads.mdx, "Thread Membership": the creator is added to the thread.
        memberIds: [context.world.bot.id],
      });
      // "Fires a Thread Create and a Message Update Gateway event."
      context.gateway.dispatch(
        'THREAD_CREATE',
        guildsDispatch({ ...apiChannel(thread, context.world), newly_created: true }),
      );
      return ok(apiChannel(thread, context.world));
    },
  },
  {
    name: 'channel-modify',
    method: 'PATCH',
    pattern: '/channels/:channelId',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'channelId',
    handle(context, { params, body }) {
      const channel = requireChannel(context, params.channelId);
      if (channel.kind !== 'thread') {
        // Guild channels need MANAGE_CHANNELS, which the fake never gives the bot.
        throw new DiscordApiError({
          status: 403,
          code: errorCodes.missingPermissions,
          message: 'Missing Permissions',
        });
      }
      // topics/threads.mdx, "Editing & Deleting Threads": changing `name`, `archived` or
      // `auto_archive_duration` "requires MANAGE_THREADS or that the current user is the thread creator".
      if (channel.ownerId !== context.world.bot.id) assertBotMay(context, channel, 'manage-threads');
      const json = jsonObject(body);
      assertThreadFields({ name: json.name, autoArchive: json.auto_archive_duration });
      if (typeof json.name === 'string' && json.name !== channel.name) {
        refuseRenameOverLimit(channel);
        channel.nameChangesAtMs.push(preciseNowMs());
        channel.name = json.name;
      }
      if (json.auto_archive_duration !== undefined)
        channel.autoArchiveMinutes = Number(json.auto_archive_duration);
      // "Fires a Thread Update Gateway event."
      context.gateway.dispatch('THREAD_UPDATE', guildsDispatch(apiChannel(channel, context.world)));
      return ok(apiChannel(channel, context.world));
    },
  },
];

/**
 * A post's `applied_tags`: at most 5 (resources/channel.mdx, "Modify Channel"), each one of the
 * forum's `available_tags` (opcodes-and-status-codes.mdx, 10087 "Unknown Tag"), and at least one
 * where the forum has REQUIRE_TAG ("Channel Flags"; 40067 "A tag is required to create a forum post
 * in this channel"). A moderated tag "can only be added to or removed from threads by a member with
 * the MANAGE_THREADS permission" ("Forum Tag Object"); the fake answers that with Missing
 * Permissions, as the docs name no code of its own.
 */
function assertAppliedTags(context: FakeDiscordContext, forum: FakeChannel, appliedTags: unknown): string[] {
  const tagIds = Array.isArray(appliedTags) ? appliedTags.map(String) : [];
  if (tagIds.length > appliedTagsLimit) {
    throw invalidFormBody([
      {
        path: ['applied_tags'],
        error: { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${appliedTagsLimit} or fewer in length.` },
      },
    ]);
  }
  for (const tagId of tagIds) {
    const tag = forum.availableTags.find((available) => available.id === tagId);
    if (tag === undefined) {
      throw new DiscordApiError({ status: 400, code: errorCodes.unknownTag, message: 'Unknown Tag' });
    }
    if (tag.isModerated) assertBotMay(context, forum, 'manage-threads');
  }
  if (forum.requiresTag && tagIds.length === 0) {
    throw new DiscordApiError({
      status: 400,
      code: errorCodes.tagRequired,
      message: 'A tag is required to create a forum post in this channel',
    });
  }
  return tagIds;
}

function refuseRenameOverLimit(channel: FakeChannel): void {
  const now = preciseNowMs();
  const recent = channel.nameChangesAtMs.filter((atMs) => now - atMs < threadRenameLimit.windowMs);
  channel.nameChangesAtMs = recent;
  const oldest = recent[0];
  if (recent.length < threadRenameLimit.renames || oldest === undefined) return;
  const retryAfterSeconds = (threadRenameLimit.windowMs - (now - oldest)) / 1000;
  throw new RenameRateLimited(retryAfterSeconds);
}

/** The 429 of the rename limit: topics/rate-limits.mdx, "Exceeding A Rate Limit" body and `Retry-After`. */
class RenameRateLimited extends DiscordApiError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super({
      status: 429,
      code: 0,
      message: 'You are being rate limited.',
      headers: { 'retry-after': String(Math.ceil(retryAfterSeconds)), 'x-ratelimit-scope': 'shared' },
    });
    this.retryAfterSeconds = retryAfterSeconds;
  }
  override toBody() {
    return { message: this.message, retry_after: this.retryAfterSeconds, global: false };
  }
}

/** "1-100 character channel name", and one of the four archive durations. */
function assertThreadFields({ name, autoArchive }: { name: unknown; autoArchive: unknown }): void {
  const problems = [];
  if (name !== undefined) {
    const length = typeof name === 'string' ? characterCount(name) : -1;
    if (length < 1 || length > 100) {
      problems.push({
        path: ['name'],
        error: { code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' },
      });
    }
  }
  if (autoArchive !== undefined && !(autoArchiveMinutes as readonly number[]).includes(Number(autoArchive))) {
    problems.push({
      path: ['auto_archive_duration'],
      error: {
        code: 'BASE_TYPE_CHOICES',
        message: `Value must be one of (${autoArchiveMinutes.join(', ')}).`,
      },
    });
  }
  if (problems.length > 0) throw invalidFormBody(problems);
}

function assertBotMay(context: FakeDiscordContext, channel: FakeChannel, permission: BotPermission): void {
  const bits = context.world.botPermissionsIn(channel);
  if (!hasPermission(bits, 'view-channel')) {
    throw new DiscordApiError({ status: 403, code: errorCodes.missingAccess, message: 'Missing Access' });
  }
  if (!hasPermission(bits, permission)) {
    throw new DiscordApiError({
      status: 403,
      code: errorCodes.missingPermissions,
      message: 'Missing Permissions',
    });
  }
}
