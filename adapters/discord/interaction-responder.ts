import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type Message,
  MessageFlags,
} from 'discord.js';
import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { noPings } from './channel-surface.ts';
import { discordLimits } from './discord-limits.ts';
import { asAttachments, fitMessageUploads } from './fit-uploads.ts';
import { removePressedButton } from './pressed-button.ts';
import { renderButtons, renderEmbed } from './render-embed.ts';

type RepliableInteraction = ChatInputCommandInteraction | ButtonInteraction;

/**
 * How the interaction was acknowledged, which decides what `@original` is
 * (interactions/receiving-and-responding.mdx, "Interaction Callback Type"):
 * - `public-reply` / `private-reply`: type 5, a "thinking…" message the first answer replaces; its
 *   privacy (the EPHEMERAL flag) is fixed by the defer and cannot change afterwards.
 * - `update`: type 6, for a button: `@original` is the message the button sits on, which an answer
 *   must never replace or delete.
 */
export type InteractionDeferral = 'public-reply' | 'private-reply' | 'update';

type Payload = InteractionEditReplyOptions & InteractionReplyOptions;

/**
 * Answers through an interaction that was deferred on arrival (within Discord's 3 s). The first
 * answer replaces the deferred "thinking…" when its privacy matches the defer's; otherwise, and for
 * every later answer, it is a follow-up. Interaction webhooks are exempt from the bot's global rate
 * limit, so these calls never compete with channel streams.
 */
export function createInteractionResponder({
  interaction,
  deferral,
  maxRequestBytes = discordLimits.requestBytes,
}: {
  interaction: RepliableInteraction;
  deferral: InteractionDeferral;
  /** The largest request that may send a message, files included. */
  maxRequestBytes?: number;
}): CommandResponder {
  // 'waiting': still "thinking…"; 'progress': showing progress; 'done': answered, deleted, or not ours.
  let originalState: 'waiting' | 'progress' | 'done' = deferral === 'update' ? 'done' : 'waiting';
  let originalId: string | undefined;

  const deliver = async (payload: Payload, isPrivate: boolean): Promise<Message> => {
    if (originalState !== 'done') {
      originalState = 'done';
      if (isPrivate === (deferral === 'private-reply')) {
        const message = await interaction.editReply(payload);
        originalId = message.id;
        return message;
      }
      // The "thinking…" cannot change its privacy: it goes, and the answer comes as a follow-up.
      await interaction.deleteReply().catch(() => undefined);
    }
    return interaction.followUp({ ...payload, ...(isPrivate ? { flags: MessageFlags.Ephemeral } : {}) });
  };
  // Checked before sending: Discord refuses the whole message when one file is too large.
  const withFiles = async (
    files: readonly OutgoingFile[] | undefined,
    text: string,
    otherPayload: Payload,
  ): Promise<Payload> => {
    if (!files || files.length === 0) return { ...otherPayload, content: text };
    const fitted = await fitMessageUploads({
      files: files.slice(0, discordLimits.attachmentsPerMessage),
      text,
      otherPayload,
      maxFileBytes: interaction.attachmentSizeLimit || discordLimits.attachmentBytes,
      maxRequestBytes,
      maxTextLength: discordLimits.messageLength,
    });
    return { ...otherPayload, content: fitted.text, files: asAttachments(fitted.files) };
  };
  const editMessage = async (message: PostedMessage, payload: InteractionEditReplyOptions) => {
    await interaction.editReply({
      ...payload,
      message: message.id === originalId ? '@original' : message.id,
    });
  };

  const surface: Surface = {
    limits: { maxMessageLength: discordLimits.messageLength, minEditIntervalMs: 1_000 },
    post: async (text, options) => {
      const message = await deliver(
        {
          content: text,
          allowedMentions: noPings,
          ...(options?.actions && options.actions.length > 0
            ? { components: renderButtons(options.actions) }
            : {}),
        },
        false,
      );
      return { id: message.id };
    },
    edit: (message, text) => editMessage(message, { content: text, allowedMentions: noPings }),
    upload: async (files, text) => {
      const message = await deliver(await withFiles(files, text ?? '', { allowedMentions: noPings }), false);
      return { id: message.id };
    },
    setActions: (message: PostedMessage, actions: readonly Action[]) =>
      editMessage(message, { components: renderButtons(actions) }),
  };

  return {
    surface,
    async progress(text) {
      if (originalState === 'done') return;
      originalState = 'progress';
      await interaction.editReply({ content: text, allowedMentions: noPings });
    },
    async send(result: CommandResult) {
      const payload = await withFiles(result.files, result.text ?? '', {
        allowedMentions: noPings,
        embeds: result.card ? [renderEmbed(result.card)] : [],
        components: renderButtons(result.actions ?? []),
      });
      const message = await deliver(payload, result.isPrivate ?? false);
      // Discord's links to the files are public: a later Vary can hand them to the image model.
      return { fileUrls: message.attachments.map((attachment) => attachment.url) };
    },
    ...(deferral === 'update' && interaction.isButton()
      ? { removePressedAction: () => removePressedButton(interaction) }
      : {}),
  };
}
