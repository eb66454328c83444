import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  MessageFlags,
} from 'discord.js';
import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { noPings } from './channel-surface.ts';
import { discordLimits } from './discord-limits.ts';
import { renderButtons, renderEmbed } from './render-embed.ts';

type RepliableInteraction = ChatInputCommandInteraction | ButtonInteraction;

/**
 * Answers through an interaction that was deferred on arrival (within Discord's 3 s): the first
 * answer replaces the deferred "thinking…" original, later ones are follow-ups, and a private answer
 * is an ephemeral follow-up (the public placeholder is removed first). Interaction webhooks are
 * exempt from the bot's global rate limit, so these calls never compete with channel streams.
 */
export function createInteractionResponder({
  interaction,
}: {
  interaction: RepliableInteraction;
}): CommandResponder {
  // 'placeholder': still the deferred "thinking…"; 'progress': showing progress; 'used': holds an answer.
  let originalState: 'placeholder' | 'progress' | 'used' = 'placeholder';
  let originalId: string | undefined;

  const toMessage = async (
    payload: InteractionEditReplyOptions & InteractionReplyOptions,
  ): Promise<PostedMessage & { fileUrls: string[] }> => {
    if (originalState !== 'used') {
      originalState = 'used';
      const message = await interaction.editReply(payload);
      originalId = message.id;
      return { id: message.id, fileUrls: message.attachments.map((attachment) => attachment.url) };
    }
    const message = await interaction.followUp(payload);
    return { id: message.id, fileUrls: message.attachments.map((attachment) => attachment.url) };
  };
  const editMessage = async (message: PostedMessage, payload: InteractionEditReplyOptions) => {
    await interaction.editReply({
      ...payload,
      message: message.id === originalId ? '@original' : message.id,
    });
  };
  const filesOf = (files: readonly OutgoingFile[] | undefined) =>
    files && files.length > 0
      ? {
          files: files
            .slice(0, discordLimits.attachmentsPerMessage)
            .map((file) => ({ attachment: Buffer.from(file.bytes), name: file.name })),
        }
      : {};

  const surface: Surface = {
    limits: { maxMessageLength: discordLimits.messageLength, minEditIntervalMs: 1_000 },
    post: (text, options) =>
      toMessage({
        content: text,
        allowedMentions: noPings,
        ...(options?.actions && options.actions.length > 0
          ? { components: renderButtons(options.actions) }
          : {}),
      }),
    edit: (message, text) => editMessage(message, { content: text, allowedMentions: noPings }),
    upload: (files, text) => toMessage({ content: text ?? '', allowedMentions: noPings, ...filesOf(files) }),
    setActions: (message: PostedMessage, actions: readonly Action[]) =>
      editMessage(message, { components: renderButtons(actions) }),
  };

  return {
    surface,
    // Discord's attachment links are public; a button's payload carries the clicked message with
    // freshly signed ones (discord-api-docs reference.mdx, "Signed Attachment CDN URLs").
    hasPublicFileLinks: true,
    ...(interaction.isButton()
      ? { clickedMessageFileUrls: interaction.message.attachments.map((attachment) => attachment.url) }
      : {}),
    async progress(text) {
      if (originalState === 'used') return;
      originalState = 'progress';
      await interaction.editReply({ content: text, allowedMentions: noPings });
    },
    async send(result: CommandResult) {
      const payload = {
        content: result.text ?? '',
        allowedMentions: noPings,
        embeds: result.card ? [renderEmbed(result.card)] : [],
        components: renderButtons(result.actions ?? []),
        ...filesOf(result.files),
      };
      if (!result.isPrivate) {
        // Discord's links to the files are public: a later Vary can hand them to the image model.
        const posted = await toMessage(payload);
        return { fileUrls: posted.fileUrls };
      }
      if (originalState !== 'used') {
        // The deferred reply was public; a private answer must not leave "thinking…" behind.
        originalState = 'used';
        await interaction.deleteReply().catch(() => undefined);
      }
      await interaction.followUp({ ...payload, flags: MessageFlags.Ephemeral });
    },
  };
}
