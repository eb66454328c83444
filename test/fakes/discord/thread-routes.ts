import { apiChannel } from './api-objects.ts';
import { requireChannel } from './channel-routes.ts';
import { DiscordApiError, errorCodes, invalidFormBody, unknownEntity } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { guildsDispatch } from './gateway-intents.ts';
import { characterCount } from './message-limits.ts';
import { type BotPermission, hasPermission } from './permissions.ts';
import { preciseNowMs } from './precise-time.ts';
import { jsonObject } from './request-body.ts';
import { ok, type RestRoute } from './rest-route.ts';
import type { FakeChannel } from './world.ts';

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

/** Starting a thread from a message, and renaming a thread. */
export const threadRoutes: RestRoute[] = [
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
