import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type Message,
  type MessageCreateOptions,
  MessageFlags,
} from 'discord.js';
import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import type { Logger } from '../../src/log.ts';
import type { ChannelFallback } from './channel-fallback.ts';
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

/** How long an answer may show plain "thinking…" behind another reply before it says it is queued. */
const queuedNoticeDelayMs = 2_000;
const queuedNotice = "⏳ Queued behind the reply in progress here; I'll answer as soon as it's done.";

/**
 * When the interaction's token stops carrying answers and where they go after that. The handover
 * comes a little before the token's real end, so the "thinking…" can still say where the answer
 * will be: a command queued behind a long reply must not leave it thinking for ever.
 */
export interface TokenDeadline {
  /** Epoch milliseconds. */
  readonly atMs: number;
  /** The channel (and DMs) to answer in afterwards; none when the channel is out of reach. */
  readonly fallback: ChannelFallback | undefined;
  readonly now: () => number;
}

/** An interaction's responder, and the end of its deadline timer once the command is done. */
export interface InteractionResponder extends CommandResponder {
  dispose(): void;
}

/**
 * Answers through an interaction that was deferred on arrival (within Discord's 3 s). The first
 * answer replaces the deferred "thinking…" when its privacy matches the defer's; otherwise, and for
 * every later answer, it is a follow-up. Interaction webhooks are exempt from the bot's global rate
 * limit, so these calls never compete with channel streams.
 */
export function createInteractionResponder({
  interaction,
  deferral,
  logger,
  maxRequestBytes = discordLimits.requestBytes,
  tokenDeadline,
  isQueued = false,
}: {
  interaction: RepliableInteraction;
  deferral: InteractionDeferral;
  logger: Logger;
  /** The largest request that may send a message, files included. */
  maxRequestBytes?: number;
  tokenDeadline?: TokenDeadline;
  /** Another reply of the conversation was running when this arrived, so the answer may wait. */
  isQueued?: boolean;
}): InteractionResponder {
  // 'waiting': still "thinking…"; 'progress': showing progress; 'done': answered, deleted, or not ours.
  let originalState: 'waiting' | 'progress' | 'done' = deferral === 'update' ? 'done' : 'waiting';
  let originalId: string | undefined;
  const isPastDeadline = () => tokenDeadline !== undefined && tokenDeadline.now() >= tokenDeadline.atMs;
  // Messages posted into the channel after the handover, which only the channel can edit.
  const channelMessageIds = new Set<string>();

  const handOver = async () => {
    if (originalState === 'done') return;
    originalState = 'done';
    const where = !tokenDeadline?.fallback
      ? 'so please run the command again in a moment.'
      : deferral === 'private-reply'
        ? "so I'll send you the answer as a direct message when it's ready."
        : "so I'll post the answer in this channel when it's ready.";
    await interaction
      .editReply({
        content: `⏳ Still queued behind the reply in progress here. Discord closes this answer soon, ${where}`,
        allowedMentions: noPings,
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not say where a late answer will go'));
  };
  const handoverTimer =
    tokenDeadline && deferral !== 'update'
      ? setTimeout(() => void handOver(), Math.max(0, tokenDeadline.atMs - tokenDeadline.now()))
      : undefined;
  handoverTimer?.unref();
  // An answer still "thinking…" after a moment, behind another reply, says that it waits in line.
  const queuedTimer =
    isQueued && deferral !== 'update'
      ? setTimeout(() => {
          if (originalState !== 'waiting' || isPastDeadline()) return;
          originalState = 'progress';
          interaction
            .editReply({ content: queuedNotice, allowedMentions: noPings })
            .catch((error: unknown) => logger.warn({ err: error }, 'could not say that an answer is queued'));
        }, queuedNoticeDelayMs)
      : undefined;
  queuedTimer?.unref();

  const deliver = async (payload: Payload, isPrivate: boolean): Promise<Message> => {
    if (isPastDeadline()) {
      await handOver();
      const fallback = tokenDeadline?.fallback;
      if (!fallback) throw new Error('the interaction token has expired and the channel is out of reach');
      const message = await fallback.send(payload as MessageCreateOptions, { isPrivate });
      channelMessageIds.add(message.id);
      return message;
    }
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
      const fallbackSurface = isPastDeadline() ? tokenDeadline?.fallback?.surface : undefined;
      if (fallbackSurface) {
        await handOver();
        const posted = await fallbackSurface.post(text, options);
        channelMessageIds.add(posted.id);
        return posted;
      }
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
    edit: (message, text, options) =>
      channelMessageIds.has(message.id) && tokenDeadline?.fallback
        ? tokenDeadline.fallback.surface.edit(message, text, options)
        : editMessage(message, { content: text, allowedMentions: noPings }),
    upload: async (files, text) => {
      const message = await deliver(await withFiles(files, text ?? '', { allowedMentions: noPings }), false);
      return { id: message.id };
    },
    setActions: (message: PostedMessage, actions: readonly Action[]) =>
      channelMessageIds.has(message.id) && tokenDeadline?.fallback?.surface.setActions
        ? tokenDeadline.fallback.surface.setActions(message, actions)
        : editMessage(message, { components: renderButtons(actions) }),
  };

  return {
    surface,
    async progress(text) {
      if (originalState === 'done' || isPastDeadline()) return;
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
    dispose: () => {
      clearTimeout(handoverTimer);
      clearTimeout(queuedTimer);
    },
  };
}
