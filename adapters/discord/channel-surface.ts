import {
  DiscordAPIError,
  type Message,
  type MessageCreateOptions,
  PermissionFlagsBits,
  type PermissionResolvable,
  RESTJSONErrorCodes,
  type SendableChannels,
} from 'discord.js';
import type { Action } from '../../src/delivery/card.ts';
import type { RequestBucket, RequestScheduler } from '../../src/delivery/request-scheduler.ts';
import type { OutgoingFile, PostedMessage, PostOptions, Surface } from '../../src/delivery/surface.ts';
import { classifyDiscordFailure } from './classify-failure.ts';
import { discordLimits } from './discord-limits.ts';
import { asAttachments, fitMessageUploads } from './fit-uploads.ts';
import { renderButtons } from './render-embed.ts';

/**
 * Discord counts creates and edits per channel (about 5 per 5 s each); the window is stretched a
 * little because Discord starts its window when a request arrives, a moment after we send it.
 */
export function channelBucket(kind: 'create' | 'edit', channelId: string): RequestBucket {
  return {
    key: `${kind}:${channelId}`,
    limit: discordLimits.editsPerWindow,
    windowMs: discordLimits.editWindowMs + discordLimits.bucketMarginMs,
  };
}

// Model output must never ping @everyone, roles or users: mentions render but notify nobody.
export const noPings = { parse: [], repliedUser: false } as const;

/**
 * A Discord channel (or thread, or DM) as a Surface. The first message answers the person's message
 * as a reply; every call waits its turn in the bot's one request scheduler, which keeps both the
 * bot-wide budget and the channel's own create and edit buckets (shared by every reply streaming in
 * the channel), and sends first texts and final texts before in-between edits; buttons are message
 * components.
 */
export function createChannelSurface({
  channel,
  scheduler,
  replyTo,
  botUserId,
}: {
  channel: SendableChannels;
  scheduler: RequestScheduler;
  replyTo?: Message;
  botUserId: string;
}): Surface {
  let isFirstPost = true;
  // When each message last showed fresh text: the scheduler serves the stalest edit first.
  const lastShownAtMs = new Map<string, number>();
  const botMay = (permission: PermissionResolvable) => {
    if (!('permissionsFor' in channel) || typeof channel.permissionsFor !== 'function') return true;
    return channel.permissionsFor(botUserId)?.has(permission) ?? true;
  };
  const send = (payload: MessageCreateOptions, text: () => string) =>
    scheduler.schedule<{ id: string }>({
      priority: 'post',
      bucket: channelBucket('create', channel.id),
      run: () => channel.send({ ...payload, content: text() }),
    });
  const post = async (
    text: string,
    options?: PostOptions & { files?: readonly OutgoingFile[] },
  ): Promise<PostedMessage> => {
    // A reply (message_reference) needs Read Message History (resources/message.mdx, Create
    // Message); without it the answer is a plain message, which the person still sees under theirs.
    const isReply = isFirstPost && replyTo !== undefined && botMay(PermissionFlagsBits.ReadMessageHistory);
    isFirstPost = false;
    const payload = {
      allowedMentions: noPings,
      ...(options?.actions && options.actions.length > 0
        ? { components: renderButtons(options.actions) }
        : {}),
      ...(options?.files ? { files: asAttachments(options.files) } : {}),
    };
    const currentText = () => options?.currentText?.() ?? text;
    const sent = isReply
      ? await send(
          { ...payload, reply: { messageReference: replyTo.id, failIfNotExists: false } },
          currentText,
        ).catch((error: unknown) => {
          // The permission changed after the client last heard of it: post plainly at once.
          if (!isMissingPermissions(error)) throw error;
          return send(payload, currentText);
        })
      : await send(payload, currentText);
    lastShownAtMs.set(sent.id, Date.now());
    return { id: sent.id };
  };
  const editMessage = async ({
    message,
    isFinal,
    change,
  }: {
    message: PostedMessage;
    isFinal: boolean;
    change: () => { content?: string; components?: ReturnType<typeof renderButtons> };
  }) => {
    await scheduler.schedule({
      priority: isFinal ? 'final-edit' : 'edit',
      bucket: channelBucket('edit', channel.id),
      staleSinceMs: lastShownAtMs.get(message.id) ?? 0,
      run: () => channel.messages.edit(message.id, { ...change(), allowedMentions: noPings }),
    });
    lastShownAtMs.set(message.id, Date.now());
  };
  return {
    limits: { maxMessageLength: discordLimits.messageLength, minEditIntervalMs: 1_000 },
    address: { platform: 'discord', channelId: channel.id },
    classifyFailure: classifyDiscordFailure,
    post: (text, options) => post(text, options),
    edit: (message, text, options) =>
      editMessage({
        message,
        isFinal: options?.isFinal ?? false,
        change: () => ({ content: options?.currentText?.() ?? text }),
      }),
    async upload(files, text) {
      if (!botMay(PermissionFlagsBits.AttachFiles)) {
        return post(
          `${text ? `${text}\n\n` : ''}_⚠ I need the **Attach Files** permission in this channel to send the files._`,
        );
      }
      // Checked before sending: Discord refuses the whole message when one file is too large.
      const fitted = await fitMessageUploads({
        files: files.slice(0, discordLimits.attachmentsPerMessage),
        text: text ?? '',
        otherPayload: {},
        maxFileBytes: discordLimits.attachmentBytes,
        maxRequestBytes: discordLimits.requestBytes,
        maxTextLength: discordLimits.messageLength,
      });
      return post(fitted.text, { files: fitted.files });
    },
    async showTyping() {
      // Typing is a courtesy: it never takes budget that a reply's text could use.
      if (scheduler.isIdle()) {
        await scheduler.schedule({ priority: 'typing', run: () => channel.sendTyping() });
      }
    },
    setActions: (message: PostedMessage, actions: readonly Action[]) =>
      editMessage({ message, isFinal: false, change: () => ({ components: renderButtons(actions) }) }),
    // Discord has no private message in a channel, so the person gets it in a DM.
    ...(replyTo
      ? {
          async postPrivately(text: string) {
            await replyTo.author.send({ content: text, allowedMentions: noPings });
          },
        }
      : {}),
  };
}

function isMissingPermissions(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MissingPermissions;
}
