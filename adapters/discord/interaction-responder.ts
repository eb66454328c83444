import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type Message,
  type MessageCreateOptions,
  MessageFlags,
} from 'discord.js';
import { splitCommandResult } from '../../commands/answer-pieces.ts';
import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import type { Logger } from '../../src/log.ts';
import { type ChannelFallback, personMentionLength } from './channel-fallback.ts';
import { noPings } from './channel-surface.ts';
import { classifyDiscordFailure } from './classify-failure.ts';
import { discordLimits } from './discord-limits.ts';
import { asAttachments, fitMessageUploads } from './fit-uploads.ts';
import { removePressedButton } from './pressed-button.ts';
import { type ComponentsPiece, isComponentsPiece, renderComponents } from './render-components.ts';
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

/** What one responder knows and has done; the functions below share it. */
interface ResponderState {
  readonly interaction: RepliableInteraction;
  readonly deferral: InteractionDeferral;
  readonly logger: Logger;
  readonly maxRequestBytes: number;
  readonly tokenDeadline: TokenDeadline | undefined;
  /** 'waiting': still "thinking…"; 'progress': showing progress; 'done': answered, deleted, or not ours. */
  originalState: 'waiting' | 'progress' | 'done';
  originalId: string | undefined;
  /** Messages posted into the channel after the handover, which only the channel can edit. */
  readonly channelMessageIds: Set<string>;
}

/**
 * Answers through an interaction that was deferred on arrival (within Discord's 3 s). The first
 * answer replaces the deferred "thinking…" when its privacy matches the defer's; otherwise, and for
 * every later answer, it is a follow-up. Interaction webhooks are exempt from the bot's global rate
 * limit, so these calls never compete with channel streams. Near the token's end it hands over to
 * the channel (see `TokenDeadline`).
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
  const state: ResponderState = {
    interaction,
    deferral,
    logger,
    maxRequestBytes,
    tokenDeadline,
    originalState: deferral === 'update' ? 'done' : 'waiting',
    originalId: undefined,
    channelMessageIds: new Set(),
  };
  const timers = startWaitingTimers({ state, isQueued });
  return {
    surface: createResponderSurface(state),
    // Discord's attachment links are public; a button's payload carries the clicked message with
    // freshly signed ones (discord-api-docs reference.mdx, "Signed Attachment CDN URLs").
    hasPublicFileLinks: true,
    ...(interaction.isButton()
      ? { clickedMessageFileUrls: interaction.message.attachments.map((attachment) => attachment.url) }
      : {}),
    async progress(text) {
      if (state.originalState === 'done' || isPastDeadline(state)) return undefined;
      state.originalState = 'progress';
      await interaction.editReply({ content: text, allowedMentions: noPings });
      // The interaction's own message, which its webhook edits by this name.
      return { id: '@original' };
    },
    async send(result: CommandResult) {
      // A text over Discord's 2,000 characters is refused whole: it goes as several messages, in
      // order, the first in place of the "thinking…", the card, files and buttons with the last. After
      // the handover the channel names the person in front of the first piece it posts, so every
      // piece leaves room (the handover may come between any two).
      const maxLength = discordLimits.messageLength - (tokenDeadline?.fallback ? personMentionLength : 0);
      let message: Message | undefined;
      let isInChannel = false;
      for (const piece of splitCommandResult({ result, maxLength })) {
        // Cards and drawn images are laid out with components; plain text stays plain content.
        const payload = isComponentsPiece(piece)
          ? await withComponents(state, piece)
          : await withFiles(state, piece.files, piece.text ?? '', {
              allowedMentions: noPings,
              embeds: piece.card ? [renderEmbed(piece.card)] : [],
              components: renderButtons(piece.actions ?? []),
            });
        message = await deliver(state, payload, piece.isPrivate ?? false, { isContinuation: isInChannel });
        isInChannel = state.channelMessageIds.has(message.id);
      }
      // Discord's links to the files are public: a later Vary can hand them to the image model.
      return { fileUrls: message?.attachments.map((attachment) => attachment.url) ?? [] };
    },
    async sendDirect(result: CommandResult) {
      // A DM channel with the person (POST /users/@me/channels, then a message there); Discord
      // refuses it with 50007 when they do not take DMs from the server's members.
      for (const piece of splitCommandResult({ result, maxLength: discordLimits.messageLength })) {
        const payload = await withFiles(state, piece.files, piece.text ?? '', {
          allowedMentions: noPings,
          embeds: piece.card ? [renderEmbed(piece.card)] : [],
          components: [],
        });
        await interaction.user.send(payload as MessageCreateOptions);
      }
    },
    ...(deferral === 'update' && interaction.isButton()
      ? { removePressedAction: () => removePressedButton(interaction) }
      : {}),
    dispose: () => {
      for (const timer of timers) clearTimeout(timer);
    },
  };
}

function isPastDeadline(state: ResponderState): boolean {
  const deadline = state.tokenDeadline;
  return deadline !== undefined && deadline.now() >= deadline.atMs;
}

/**
 * The handover a little before the token's end, and the queued notice of an answer still
 * "thinking…" after a moment behind another reply. Neither touches a pressed button's message.
 */
function startWaitingTimers({
  state,
  isQueued,
}: {
  state: ResponderState;
  isQueued: boolean;
}): NodeJS.Timeout[] {
  if (state.deferral === 'update') return [];
  const timers: NodeJS.Timeout[] = [];
  const deadline = state.tokenDeadline;
  if (deadline) {
    timers.push(setTimeout(() => void handOver(state), Math.max(0, deadline.atMs - deadline.now())));
  }
  if (isQueued) {
    timers.push(
      setTimeout(() => {
        if (state.originalState !== 'waiting' || isPastDeadline(state)) return;
        state.originalState = 'progress';
        state.interaction
          .editReply({ content: queuedNotice, allowedMentions: noPings })
          .catch((error: unknown) =>
            state.logger.warn({ err: error }, 'could not say that an answer is queued'),
          );
      }, queuedNoticeDelayMs),
    );
  }
  for (const timer of timers) timer.unref();
  return timers;
}

/** While the token still works, the "thinking…" says where the answer will come instead. */
async function handOver(state: ResponderState): Promise<void> {
  if (state.originalState === 'done') return;
  state.originalState = 'done';
  const where = !state.tokenDeadline?.fallback
    ? 'so please run the command again in a moment.'
    : state.deferral === 'private-reply'
      ? "so I'll send you the answer as a direct message when it's ready."
      : "so I'll post the answer in this channel when it's ready.";
  await state.interaction
    .editReply({
      content: `⏳ Still queued behind the reply in progress here. Discord closes this answer soon, ${where}`,
      allowedMentions: noPings,
    })
    .catch((error: unknown) =>
      state.logger.warn({ err: error }, 'could not say where a late answer will go'),
    );
}

/** Sends one answer: into the "thinking…", as a follow-up, or after the handover into the channel. */
async function deliver(
  state: ResponderState,
  payload: Payload,
  isPrivate: boolean,
  { isContinuation = false }: { isContinuation?: boolean } = {},
): Promise<Message> {
  const { interaction } = state;
  if (isPastDeadline(state)) {
    await handOver(state);
    const fallback = state.tokenDeadline?.fallback;
    if (!fallback) throw new Error('the interaction token has expired and the channel is out of reach');
    const message = await fallback.send(payload as MessageCreateOptions, { isPrivate, isContinuation });
    state.channelMessageIds.add(message.id);
    return message;
  }
  if (state.originalState !== 'done') {
    const stateBefore = state.originalState;
    state.originalState = 'done';
    if (isPrivate === (state.deferral === 'private-reply')) {
      try {
        // resources/message.mdx, "Edit Message": setting IS_COMPONENTS_V2 on the "thinking…" (or
        // the progress line) needs its content reset to null and its embeds to [].
        const message = await interaction.editReply(
          isComponentsPayload(payload) ? { ...payload, content: null, embeds: [] } : payload,
        );
        state.originalId = message.id;
        return message;
      } catch (error) {
        // Not answered after all: the answer tried again must still replace the "thinking…" or the
        // progress line, not leave it for good above a follow-up.
        state.originalState = stateBefore;
        throw error;
      }
    }
    // The "thinking…" cannot change its privacy: it goes, and the answer comes as a follow-up.
    await interaction.deleteReply().catch(() => undefined);
  }
  return interaction.followUp({ ...payload, ...(isPrivate ? { flags: MessageFlags.Ephemeral } : {}) });
}

/**
 * A card or drawn images as a Components V2 message, its files fitted first (their names are what
 * the gallery and file components point to) and any note about a file left out said in the card.
 */
async function withComponents(state: ResponderState, piece: ComponentsPiece): Promise<Payload> {
  const files = piece.files ?? [];
  const fitted =
    files.length === 0
      ? { files: [], text: '' }
      : await fitMessageUploads({
          files: files.slice(0, discordLimits.attachmentsPerMessage),
          text: '',
          otherPayload: renderComponents(piece),
          maxFileBytes: state.interaction.attachmentSizeLimit || discordLimits.attachmentBytes,
          maxRequestBytes: state.maxRequestBytes,
          maxTextLength: discordLimits.messageLength,
        });
  const text = [piece.text ?? '', fitted.text].filter((part) => part !== '').join('\n\n');
  const rendered = renderComponents({ ...piece, text, files: fitted.files });
  return {
    ...rendered,
    allowedMentions: noPings,
    ...(fitted.files.length > 0 ? { files: asAttachments(fitted.files) } : {}),
  } as Payload;
}

/** Whether a payload is laid out with components (IS_COMPONENTS_V2), which takes no content. */
function isComponentsPayload(payload: Payload): boolean {
  return typeof payload.flags === 'number' && (payload.flags & MessageFlags.IsComponentsV2) !== 0;
}

/** The payload with its files, fitted before sending: Discord refuses a whole message for one file. */
async function withFiles(
  state: ResponderState,
  files: readonly OutgoingFile[] | undefined,
  text: string,
  otherPayload: Payload,
): Promise<Payload> {
  if (!files || files.length === 0) return { ...otherPayload, content: text };
  const fitted = await fitMessageUploads({
    files: files.slice(0, discordLimits.attachmentsPerMessage),
    text,
    otherPayload,
    maxFileBytes: state.interaction.attachmentSizeLimit || discordLimits.attachmentBytes,
    maxRequestBytes: state.maxRequestBytes,
    maxTextLength: discordLimits.messageLength,
  });
  return { ...otherPayload, content: fitted.text, files: asAttachments(fitted.files) };
}

/** Streamed replies (/chat, Regenerate, Continue): through the interaction, then the channel. */
function createResponderSurface(state: ResponderState): Surface {
  const fallbackSurface = () => state.tokenDeadline?.fallback?.surface;
  const isChannelMessage = (message: PostedMessage) => state.channelMessageIds.has(message.id);
  const editMessage = async (message: PostedMessage, payload: InteractionEditReplyOptions) => {
    await state.interaction.editReply({
      ...payload,
      message: message.id === state.originalId ? '@original' : message.id,
    });
  };
  return {
    limits: { maxMessageLength: discordLimits.messageLength, minEditIntervalMs: 1_000 },
    address: {
      platform: 'discord',
      channelId: state.interaction.channelId,
      interaction: { applicationId: state.interaction.applicationId, token: state.interaction.token },
    },
    classifyFailure: classifyDiscordFailure,
    // Interaction webhooks are outside the bot's budget; after the handover the channel's queue counts.
    enqueue: (call, run) => {
      const isChannelCall = call.kind === 'post' ? isPastDeadline(state) : isChannelMessage(call.message);
      const channel = isChannelCall ? fallbackSurface() : undefined;
      return channel?.enqueue ? channel.enqueue(call, run) : run();
    },
    post: async (text, options) => {
      const channel = isPastDeadline(state) ? fallbackSurface() : undefined;
      if (channel) {
        await handOver(state);
        const posted = await channel.post(text, options);
        state.channelMessageIds.add(posted.id);
        return posted;
      }
      const actions = options?.actions ?? [];
      const payload = {
        content: text,
        allowedMentions: noPings,
        ...(actions.length > 0 ? { components: renderButtons(actions) } : {}),
      };
      return { id: (await deliver(state, payload, false)).id };
    },
    edit: (message, text, options) => {
      const channel = isChannelMessage(message) ? fallbackSurface() : undefined;
      return channel
        ? channel.edit(message, text, options)
        : editMessage(message, {
            content: text,
            allowedMentions: noPings,
            ...(options?.actions === undefined ? {} : { components: renderButtons(options.actions) }),
          });
    },
    upload: async (files, text) => {
      const payload = await withFiles(state, files, text ?? '', { allowedMentions: noPings });
      return { id: (await deliver(state, payload, false)).id };
    },
    setActions: (message: PostedMessage, actions: readonly Action[]) => {
      const channel = isChannelMessage(message) ? fallbackSurface() : undefined;
      return channel?.setActions
        ? channel.setActions(message, actions)
        : editMessage(message, { components: renderButtons(actions) });
    },
  };
}
