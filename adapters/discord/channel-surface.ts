import type { Message, SendableChannels } from 'discord.js';
import { PermissionFlagsBits } from 'discord.js';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, PostOptions, Surface } from '../../src/delivery/surface.ts';
import type { ChannelEditBudget } from './channel-edit-budget.ts';
import { discordLimits } from './discord-limits.ts';
import { renderButtons } from './render-embed.ts';

// Model output must never ping @everyone, roles or users: mentions render but notify nobody.
export const noPings = { parse: [], repliedUser: false } as const;

/**
 * A Discord channel (or thread, or DM) as a Surface. The first message answers the person's message
 * as a reply; edits wait for the channel's shared edit budget; buttons are message components.
 */
export function createChannelSurface({
  channel,
  budget,
  replyTo,
  botUserId,
}: {
  channel: SendableChannels;
  budget: ChannelEditBudget;
  replyTo?: Message;
  botUserId: string;
}): Surface {
  let isFirstPost = true;
  const canAttachFiles = () => {
    if (!('permissionsFor' in channel) || typeof channel.permissionsFor !== 'function') return true;
    return channel.permissionsFor(botUserId)?.has(PermissionFlagsBits.AttachFiles) ?? true;
  };
  const post = async (
    text: string,
    options?: PostOptions & { files?: readonly OutgoingFile[] },
  ): Promise<PostedMessage> => {
    const reference =
      isFirstPost && replyTo ? { reply: { messageReference: replyTo.id, failIfNotExists: false } } : {};
    isFirstPost = false;
    const sent = await channel.send({
      content: text,
      allowedMentions: noPings,
      ...reference,
      ...(options?.actions && options.actions.length > 0
        ? { components: renderButtons(options.actions) }
        : {}),
      ...(options?.files
        ? { files: options.files.map((file) => ({ attachment: Buffer.from(file.bytes), name: file.name })) }
        : {}),
    });
    return { id: sent.id };
  };
  return {
    limits: { maxMessageLength: discordLimits.messageLength, minEditIntervalMs: 1_000 },
    post: (text, options) => post(text, options),
    async edit(message, text) {
      await budget.acquire(channel.id);
      await channel.messages.edit(message.id, { content: text, allowedMentions: noPings });
    },
    async upload(files, text) {
      if (!canAttachFiles()) {
        return post(
          `${text ? `${text}\n\n` : ''}_⚠ I need the **Attach Files** permission in this channel to send the files._`,
        );
      }
      return post(text ?? '', { files });
    },
    async showTyping() {
      if (!budget.isBusy(channel.id)) await channel.sendTyping();
    },
    async setActions(message: PostedMessage, actions: readonly Action[]) {
      await budget.acquire(channel.id);
      await channel.messages.edit(message.id, { components: renderButtons(actions) });
    },
  };
}
