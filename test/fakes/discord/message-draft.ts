import type { APIEmbed, APIMessageTopLevelComponent } from 'discord.js';
import type { FakeAttachment } from './attachment-hosting.ts';
import { findComponentProblems } from './component-limits.ts';
import { componentsV2Flag, findComponentsV2Problems, isComponentsV2 } from './components-v2-rules.ts';
import { DiscordApiError, errorCodes, invalidFormBody } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { parseAllowedMentions } from './mentions.ts';
import type { MessageContent } from './message-actions.ts';
import { findLimitProblems, messageLimits } from './message-limits.ts';
import type { FakeMessage } from './message-store.ts';
import type { RequestBody } from './request-body.ts';
import { jsonObject } from './request-body.ts';
import type { FakeChannel } from './world.ts';

/** What a bot's create or edit body asks for, checked against Discord's limits. */
export interface MessageDraft extends MessageContent {
  /** The message this one replies to (`message_reference.message_id`). */
  replyToMessageId?: string;
}

/**
 * Reads a message body as discord.js sends it, refusing what Discord refuses: content over 2,000
 * characters or embeds over their limits (400, 50035), more than 10 attachments (50035), a file over
 * the upload limit (413, 40005), a reply to a message that does not exist (50035). New files are
 * hosted; on an edit, `attachments` lists the existing ones to keep.
 */
export function parseMessageDraft(
  context: FakeDiscordContext,
  options: { body: RequestBody; channel: FakeChannel; existing?: FakeMessage },
): MessageDraft {
  const json = jsonObject(options.body);
  const problems = [...findLimitProblems(json), ...findComponentProblems(json)];
  if (isComponentsV2(json)) {
    problems.push(...findComponentsV2Problems(json, filenamesOf(json, options)));
    // resources/message.mdx, "Edit Message": setting IS_COMPONENTS_V2 on a message that has content
    // needs `content` reset to null (and `embeds` to []).
    const existing = options.existing;
    if (existing !== undefined && (existing.flags & componentsV2Flag) === 0) {
      if (existing.content !== '' && json.content !== null && json.content !== '') {
        problems.push({
          path: ['content'],
          error: {
            code: 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
            message: 'Setting IS_COMPONENTS_V2 needs content reset to null',
          },
        });
      }
      if (existing.embeds.length > 0 && !(Array.isArray(json.embeds) && json.embeds.length === 0)) {
        problems.push({
          path: ['embeds'],
          error: {
            code: 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
            message: 'Setting IS_COMPONENTS_V2 needs embeds reset to []',
          },
        });
      }
    }
  } else if (
    options.existing !== undefined &&
    (options.existing.flags & componentsV2Flag) !== 0 &&
    typeof json.flags === 'number'
  ) {
    // Same page: the IS_COMPONENTS_V2 flag "can only be set", never taken off.
    problems.push({
      path: ['flags'],
      error: {
        code: 'MESSAGE_FLAGS_CANNOT_REMOVE_COMPONENTS_V2',
        message: 'IS_COMPONENTS_V2 cannot be removed',
      },
    });
  } else if (options.existing !== undefined && (options.existing.flags & componentsV2Flag) !== 0) {
    // An edit of a V2 message without flags is still V2: it may not bring content or embeds either.
    problems.push(...findComponentsV2Problems({ ...json, components: [] }, new Set()));
  }
  if (options.body.files.size > messageLimits.attachmentsPerMessage) {
    problems.push({
      path: ['files'],
      error: {
        code: 'BASE_TYPE_MAX_LENGTH',
        message: `Must be ${messageLimits.attachmentsPerMessage} or fewer in length.`,
      },
    });
  }
  if (problems.length > 0) {
    throw invalidFormBody(problems);
  }
  // reference.mdx, "Uploading Files": "The file upload size limit applies to each file in a
  // request" (10 MiB by default; interactions carry it as `attachment_size_limit`).
  const isAnyFileTooLarge = [...options.body.files.values()].some(
    (file) => file.bytes.length > context.settings.attachmentSizeLimitBytes,
  );
  // resources/message.mdx, "Create Message", Limitations: "The maximum request size when sending a
  // message is 25 MiB". Webhook and interaction uploads state no number of their own; the fake
  // holds them to the same one.
  if (isAnyFileTooLarge || options.body.sizeBytes > context.settings.requestSizeLimitBytes) {
    // topics/opcodes-and-status-codes.mdx: 40005 "Request entity too large", with HTTP 413.
    throw new DiscordApiError({
      status: 413,
      code: errorCodes.requestEntityTooLarge,
      message: 'Request entity too large',
    });
  }

  const draft: MessageDraft = {};
  if (json.content !== undefined) {
    draft.content = typeof json.content === 'string' ? json.content : '';
  }
  if (Array.isArray(json.embeds)) {
    draft.embeds = json.embeds as APIEmbed[];
  }
  if (Array.isArray(json.components)) {
    draft.components = json.components as APIMessageTopLevelComponent[];
  }
  if (typeof json.flags === 'number') {
    draft.flags = json.flags;
  }
  const attachments = resolveAttachments(context, json, options);
  if (attachments !== undefined) {
    draft.attachments = attachments;
  }
  const allowedMentions = parseAllowedMentions(json);
  if (allowedMentions !== undefined) {
    draft.allowedMentions = allowedMentions;
  }
  const replyToMessageId = resolveReply(context, json, options.channel);
  if (replyToMessageId !== undefined) {
    draft.replyToMessageId = replyToMessageId;
  }
  return draft;
}

/** The names of the files a body uploads (`files[n]`, or their `attachments` entries) and keeps. */
function filenamesOf(
  json: Record<string, unknown>,
  options: { body: RequestBody; existing?: FakeMessage },
): Set<string> {
  const names = new Set<string>();
  for (const file of options.body.files.values()) names.add(file.filename);
  if (Array.isArray(json.attachments)) {
    for (const entry of json.attachments as Record<string, unknown>[]) {
      if (typeof entry.filename === 'string') names.add(entry.filename);
    }
  }
  for (const attachment of options.existing?.attachments ?? []) names.add(attachment.filename);
  return names;
}

/**
 * Whether a new message would show nothing, which Discord refuses with 50006 (resources/message.mdx,
 * "Create Message": at least one of content, embeds, sticker_ids, components, files or poll).
 */
export function isEmptyMessage(draft: MessageContent): boolean {
  return (
    (draft.content ?? '') === '' &&
    (draft.embeds ?? []).length === 0 &&
    (draft.attachments ?? []).length === 0 &&
    (draft.components ?? []).length === 0
  );
}

/** The 400 Discord answers for a message with nothing in it. */
export function emptyMessageError(): DiscordApiError {
  return new DiscordApiError({
    status: 400,
    code: errorCodes.cannotSendEmptyMessage,
    message: 'Cannot send an empty message',
  });
}

function resolveAttachments(
  context: FakeDiscordContext,
  json: Record<string, unknown>,
  options: { body: RequestBody; channel: FakeChannel; existing?: FakeMessage },
): FakeAttachment[] | undefined {
  const { files } = options.body;
  const kept = options.existing?.attachments ?? [];
  if (!Array.isArray(json.attachments)) {
    if (files.size === 0) {
      return undefined;
    }
    const uploaded = [...files.values()].map((file) => context.attachments.host(options.channel.id, file));
    return [...kept, ...uploaded];
  }
  // Each entry is a new upload (its `id` is the n of `files[n]`) or an existing attachment to keep.
  const resolved: FakeAttachment[] = [];
  for (const entry of json.attachments as Record<string, unknown>[]) {
    const id = String(entry.id);
    const file = /^\d{1,2}$/.test(id) ? files.get(Number(id)) : undefined;
    if (file !== undefined) {
      const filename = typeof entry.filename === 'string' ? entry.filename : file.filename;
      const description = typeof entry.description === 'string' ? entry.description : file.description;
      resolved.push(
        context.attachments.host(options.channel.id, {
          ...file,
          filename,
          ...(description === undefined ? {} : { description }),
        }),
      );
    } else {
      const existing = kept.find((attachment) => attachment.id === id);
      if (existing !== undefined) {
        resolved.push(existing);
      }
    }
  }
  return resolved;
}

/**
 * resources/message.mdx, "Create Message": "The referenced message must exist"; with
 * `fail_if_not_exists: false` a missing one makes a plain message instead (same page, "Message Reference Structure").
 */
function resolveReply(
  context: FakeDiscordContext,
  json: Record<string, unknown>,
  channel: FakeChannel,
): string | undefined {
  const reference = json.message_reference;
  if (typeof reference !== 'object' || reference === null) {
    return undefined;
  }
  const { message_id: messageId, fail_if_not_exists: failIfNotExists } = reference as Record<string, unknown>;
  if (typeof messageId !== 'string') {
    return undefined;
  }
  const referenced = context.messages.get(messageId);
  if (referenced !== undefined && referenced.channelId === channel.id) {
    return messageId;
  }
  if (failIfNotExists === false) {
    return undefined;
  }
  throw invalidFormBody([
    {
      path: ['message_reference'],
      error: { code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' },
    },
  ]);
}
