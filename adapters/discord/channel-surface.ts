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
import type {
  OutgoingFile,
  PostedMessage,
  PostOptions,
  Surface,
  SurfaceCall,
} from '../../src/delivery/surface.ts';
import { classifyDiscordFailure } from './classify-failure.ts';
import { discordLimits } from './discord-limits.ts';
import { channelEditGroup, type DiscordOutbound } from './discord-outbound.ts';
import { asAttachments, fitMessageUploads } from './fit-uploads.ts';
import { renderButtons } from './render-embed.ts';

// Model output must never ping @everyone, roles or users: mentions render but notify nobody.
export const noPings = { parse: [], repliedUser: false } as const;

/** One channel edit a second at most, and less when several replies stream in the channel at once. */
const minEditIntervalMs = 1_000;
/**
 * How long a reply's first typing indicator waits. Meanwhile the reply counts among those about to
 * post (see `RepliesAwaitingText`), so that in a burst of mentions the gate has seen the burst before
 * any typing takes a slot; one reply alone shows it a fifth of a second later than at once.
 */
const firstTypingDelayMs = 200;

/** A channel's edit bucket: about 5 per 5 s. */
const channelEditsPerMinute = (60_000 / discordLimits.editWindowMs) * discordLimits.editsPerWindow;

/**
 * A Discord channel (or thread, or DM) as a Surface. The first message answers the person's message
 * as a reply; every call waits its turn in the bot's one outbound queue, which keeps both the
 * bot-wide budget and the channel's own create and edit buckets (shared by every reply streaming in
 * the channel), and sends first texts and final texts before in-between edits; buttons are message
 * components, sent with the text they belong to.
 */
export function createChannelSurface({
  channel,
  outbound,
  replyTo,
  botUserId,
}: {
  channel: SendableChannels;
  outbound: DiscordOutbound;
  replyTo?: Message;
  botUserId: string;
}): Surface {
  let isFirstPost = true;
  // Set by the reply's first typing indicator: until its first text is posted, it is awaited.
  let awaitingFirstText: (() => void) | undefined;
  let hasStartedPosting = false;
  const writerId = `${channel.id}:${Math.random().toString(36).slice(2)}`;
  const editGroup = channelEditGroup(channel.id);
  const botMay = (permission: PermissionResolvable) => {
    if (!('permissionsFor' in channel) || typeof channel.permissionsFor !== 'function') return true;
    return channel.permissionsFor(botUserId)?.has(permission) ?? true;
  };
  // A post that is not the writer's (a file upload) waits in the queue here; the writer's own posts
  // have waited already (see `enqueue`).
  const scheduledPost = <Result>(run: () => Promise<Result>) =>
    outbound.schedule({ priority: 'first-post', target: { kind: 'create', channelId: channel.id }, run });
  const post = async (
    text: string,
    options?: PostOptions & { files?: readonly OutgoingFile[] },
  ): Promise<PostedMessage> => {
    // A reply (message_reference) needs Read Message History (resources/message.mdx, Create
    // Message); without it the answer is a plain message, which the person still sees under theirs.
    // A first post tried again after a failure is still the answer to the person's message.
    const isReply = isFirstPost && replyTo !== undefined && botMay(PermissionFlagsBits.ReadMessageHistory);
    // From here on a delayed first typing would land under (or after) the text: it no longer goes.
    hasStartedPosting = true;
    outbound.noteWriter(editGroup, writerId);
    const payload: MessageCreateOptions = {
      content: text,
      allowedMentions: noPings,
      ...(options?.actions && options.actions.length > 0
        ? { components: renderButtons(options.actions) }
        : {}),
      ...(options?.files ? { files: asAttachments(options.files) } : {}),
    };
    const sent = isReply
      ? await channel
          .send({ ...payload, reply: { messageReference: replyTo.id, failIfNotExists: false } })
          .catch((error: unknown) => {
            // The permission changed after the client last heard of it: post plainly, in turn.
            if (!isMissingPermissions(error)) throw error;
            return scheduledPost<{ id: string }>(() => channel.send(payload));
          })
      : await channel.send(payload);
    isFirstPost = false;
    awaitingFirstText?.();
    return { id: sent.id };
  };
  return {
    limits: {
      maxMessageLength: discordLimits.messageLength,
      // Replies streaming in one channel share its edit bucket: each edits less often; and no
      // in-between edit is planned before the channel has a slot besides the one kept for a final.
      get minEditIntervalMs() {
        return Math.max(
          outbound.fairIntervalMs({
            group: editGroup,
            callsPerMinute: channelEditsPerMinute,
            minimumMs: minEditIntervalMs,
          }),
          outbound.inBetweenEditWaitMs(channel.id),
        );
      },
      // The queue keeps the channel's buckets, and one slot of them for final edits.
      finalEditIntervalMs: 0,
    },
    address: { platform: 'discord', channelId: channel.id },
    classifyFailure: classifyDiscordFailure,
    enqueue: <Result>(call: SurfaceCall, run: () => Promise<Result>) =>
      call.kind === 'post'
        ? outbound.schedule({
            priority: 'first-post',
            target: { kind: 'create', channelId: channel.id },
            run,
          })
        : outbound.schedule({
            priority: call.isFinal ? 'final-write' : 'edit',
            target: { kind: 'edit', channelId: channel.id, isInBetween: !call.isFinal },
            staleSinceMs: call.staleSinceMs,
            run,
          }),
    post: (text, options) => post(text, options),
    async edit(message, text, options) {
      const isLastWrite = options?.isFinal === true && options.actions !== undefined;
      await channel.messages.edit(message.id, {
        content: text,
        allowedMentions: noPings,
        ...(options?.actions === undefined ? {} : { components: renderButtons(options.actions) }),
      });
      // The reply's last message has its final text and buttons: it no longer shares the channel.
      if (isLastWrite) outbound.forgetWriter(editGroup, writerId);
    },
    async upload(files, text) {
      if (!botMay(PermissionFlagsBits.AttachFiles)) {
        return scheduledPost(() =>
          post(
            `${text ? `${text}\n\n` : ''}_⚠ I need the **Attach Files** permission in this channel to send the files._`,
          ),
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
      return scheduledPost(() => post(fitted.text, { files: fitted.files }));
    },
    async showTyping() {
      // Typing is a courtesy: it goes only when nothing waits and the budget has room, never later.
      const sendTyping = () =>
        outbound.tryNow({
          target: { kind: 'typing', channelId: channel.id },
          run: () => channel.sendTyping(),
        });
      if (awaitingFirstText === undefined && !hasStartedPosting) {
        awaitingFirstText = outbound.awaitFirstText();
        const timer = setTimeout(() => {
          if (!hasStartedPosting) sendTyping().catch(() => undefined);
        }, firstTypingDelayMs);
        timer.unref();
        return;
      }
      await sendTyping();
    },
    setActions: (message: PostedMessage, actions: readonly Action[]) =>
      outbound.schedule({
        priority: 'final-write',
        target: { kind: 'edit', channelId: channel.id },
        run: async () => {
          await channel.messages.edit(message.id, {
            components: renderButtons(actions),
            allowedMentions: noPings,
          });
        },
      }),
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
