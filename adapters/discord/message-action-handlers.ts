import {
  ChannelType,
  LabelBuilder,
  type Message,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
  ModalBuilder,
  type ModalSubmitInteraction,
  messageLink,
  PermissionFlagsBits,
  type SendableChannels,
  TextInputBuilder,
  TextInputStyle,
  type ThreadChannel,
} from 'discord.js';
import { findCommand } from '../../commands/all-commands.ts';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { ChannelMessage } from '../../commands/define-command.ts';
import { findMessageAction } from '../../commands/message-actions.ts';
import { runCommand } from '../../commands/run-command.ts';
import { firstWordsTitle } from '../../src/conversation/title-writer.ts';
import { conversationKeyOf, type IncomingTurn } from '../../src/conversation/turn.ts';
import { botUserIdOf, type DiscordAdapterContext } from './adapter-context.ts';
import { createChannelSurface } from './channel-surface.ts';
import { discordActorOf } from './discord-actor.ts';
import { discordGuide } from './discord-guide.ts';
import { forumIdFor, openForumPost } from './forum-posts.ts';
import { attachmentsWithForwarded, readableTextOf } from './forwarded-message.ts';
import { discordConversationKey, discordDocumentAttachment, discordImageAttachment } from './message-turn.ts';
import type { QuestionTarget } from './pending-modal-values.ts';
import { responderForInteraction } from './responder-for-interaction.ts';
import { titleThreadAfterFirstExchange } from './thread-conversations.ts';

const askModalPrefix = 'parley.ask:';
const questionInputId = 'question';
const imageExtensions = /\.(png|jpe?g|gif|webp)$/i;
/** The most messages "Summarize from here" reads, as /summarize allows. */
const maxMessagesFromHere = 200;

/** A message command: "Ask parley about this", "Summarize from here" or "Extract data". */
export async function runMessageAction({
  interaction,
  adapter,
}: {
  interaction: MessageContextMenuCommandInteraction;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  const action = findMessageAction(interaction.commandName);
  const target = interaction.targetMessage;
  if (action?.kind === 'ask') {
    // The modal is the first response, within the 3 s; the question comes back as a modal submit.
    const token = adapter.pendingQuestions.hold(questionTargetOf(target, adapter));
    await interaction.showModal(askModal(`${askModalPrefix}${token}`));
    return;
  }
  if (!action) {
    await interaction.reply({
      content: 'I do not know that action any more.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply();
  const responder = responderForInteraction({ interaction, deferral: 'public-reply', adapter });
  const common = {
    conversationKey: conversationKeyOfInteraction(interaction),
    user: discordActorOf(interaction),
    responder,
    services: adapter.services,
    platformNotices: adapter.platformNotices,
    platformHelp: discordGuide(adapter).join('\n'),
  };
  try {
    if (action.kind === 'extract') {
      const extract = findCommand('extract');
      if (!extract) return;
      const { images, documents } = attachmentsOf(target, adapter);
      await runCommand({
        ...common,
        command: extract,
        rawOptions: {
          what: readableTextOf(target, botUserIdOf(adapter), { withEmbeds: true }) || undefined,
          image: images[0],
          file: documents[0],
        },
        readRecentMessages: async () => [],
      });
      return;
    }
    const summarize = findCommand('summarize');
    if (!summarize) return;
    const fromHere = await readMessagesFrom({ interaction, adapter });
    if (fromHere === undefined) {
      await responder.send({
        text: 'I cannot read this channel’s messages here (the app is installed for you, or I lack **Read Message History**), so I cannot summarize from this message. "Ask parley about this" works on one message anywhere.',
        isPrivate: true,
      });
      return;
    }
    await runCommand({
      ...common,
      command: summarize,
      rawOptions: { messages: Math.min(maxMessagesFromHere, Math.max(5, fromHere.length)) },
      readRecentMessages: async (limit) => fromHere.slice(-limit),
    });
  } finally {
    responder.dispose();
  }
}

/** A submitted modal: for now only the question of "Ask parley about this". */
export async function submitModal({
  interaction,
  adapter,
}: {
  interaction: ModalSubmitInteraction;
  adapter: DiscordAdapterContext;
}): Promise<boolean> {
  if (!interaction.customId.startsWith(askModalPrefix)) return false;
  const target = adapter.pendingQuestions.take(interaction.customId.slice(askModalPrefix.length));
  if (!target) {
    await interaction.reply({
      content: 'That question waited too long (or I restarted meanwhile); please ask again from the message.',
      flags: MessageFlags.Ephemeral,
    });
    return true;
  }
  const question = interaction.fields.getTextInputValue(questionInputId).trim();
  // Asked before a thread is opened for the answer, so a refused person leaves no thread behind.
  const verdict = await adapter.services.access.authorize({
    actor: discordActorOf(interaction),
    conversationKey: conversationKeyOfInteraction(interaction),
    capability: { kind: 'command', name: 'chat' },
  });
  if (!verdict.isAllowed) {
    await interaction.reply({ content: verdict.text, flags: MessageFlags.Ephemeral });
    return true;
  }
  await answerAboutMessage({ interaction, adapter, target, question });
  return true;
}

/**
 * The answer goes in a thread from the message where parley may open one (the thread is then the
 * conversation); elsewhere (a user install, a DM, a channel without Create Public Threads) through
 * the interaction, saying why.
 */
async function answerAboutMessage({
  interaction,
  adapter,
  target,
  question,
}: {
  interaction: ModalSubmitInteraction;
  adapter: DiscordAdapterContext;
  target: QuestionTarget;
  question: string;
}): Promise<void> {
  const user = discordActorOf(interaction);
  const quoted = target.text ? `\n> ${target.text.replaceAll('\n', '\n> ')}` : ' (no text)';
  const text = `${question}\n\nAbout this message by ${target.authorName}:${quoted}`;
  const turnOf = (conversationKey: string): IncomingTurn => ({
    conversationKey,
    author: { id: user.id, name: user.name },
    actor: user,
    text,
    ownText: question,
    images: [...target.images],
    documents: [...target.documents],
    isAddressedToBot: true,
    notices: [],
  });
  const threadOutcome = await threadForMessage({ interaction, adapter, target, question });
  if (threadOutcome.thread) {
    const { thread, isNew } = threadOutcome;
    await interaction.reply({ content: `Answering in <#${thread.id}>.`, flags: MessageFlags.Ephemeral });
    const surface = createChannelSurface({
      channel: thread as SendableChannels,
      outbound: adapter.outbound,
      botUserId: botUserIdOf(adapter),
    });
    const turn = turnOf(
      conversationKeyOf({
        platform: 'discord',
        workspace: interaction.guildId ?? 'dm',
        // A forum post's conversation is keyed by its forum, as every later message in it will be.
        channel: thread.parentId ?? target.channelId,
        thread: thread.id,
      }),
    );
    const outcome = await replyWithActions({ services: adapter.services, turn, surface, isAnswerOwed: true });
    if (isNew) {
      await titleThreadAfterFirstExchange({
        thread,
        question: text,
        outcome,
        adapter,
        requester: user,
        conversationKey: turn.conversationKey,
      });
    }
    return;
  }
  await interaction.deferReply();
  const responder = responderForInteraction({ interaction, deferral: 'public-reply', adapter });
  try {
    await replyWithActions({
      services: adapter.services,
      turn: turnOf(conversationKeyOfInteraction(interaction)),
      surface: responder.surface,
      isAnswerOwed: true,
    });
    await responder.send({ text: `_${threadOutcome.reason}_`, isPrivate: true });
  } finally {
    responder.dispose();
  }
}

type ThreadOutcome =
  | { thread: ThreadChannel; isNew: boolean; reason?: never }
  | { thread?: never; reason: string };

async function threadForMessage({
  interaction,
  adapter,
  target,
  question,
}: {
  interaction: ModalSubmitInteraction;
  adapter: DiscordAdapterContext;
  target: QuestionTarget;
  question: string;
}): Promise<ThreadOutcome> {
  const unavailable =
    'I answered here because I cannot open a thread from that message: I am not in this server or channel, or I lack Create Public Threads there.';
  const channel = interaction.channel;
  if (!interaction.inCachedGuild() || channel?.type !== ChannelType.GuildText) {
    return {
      reason: channel?.isThread() ? 'I answered here: that message is already in a thread.' : unavailable,
    };
  }
  // DISCORD_THREAD_FORUMS sends this channel's conversations to a forum: a post there, linking back
  // (which needs permissions in the forum, not Create Public Threads here).
  const forumId = forumIdFor(channel.id, adapter);
  if (forumId !== undefined) {
    const outcome = await openForumPost({
      origin: {
        guildId: interaction.guildId,
        channelId: channel.id,
        askerName: interaction.member.displayName,
        askedWhere: `asked about ${messageLink(channel.id, target.messageId, interaction.guildId)}`,
      },
      forumId,
      question,
      adapter,
    });
    if (outcome.post) return { thread: outcome.post, isNew: true };
    if (outcome.problem !== undefined) return { reason: outcome.problem };
  }
  const permissions = channel.permissionsFor(botUserIdOf(adapter));
  if (
    !permissions?.has([
      PermissionFlagsBits.ViewChannel,
      PermissionFlagsBits.CreatePublicThreads,
      PermissionFlagsBits.SendMessagesInThreads,
    ])
  ) {
    adapter.logger.info({ channelId: channel.id }, 'no thread for a message action: missing permissions');
    return { reason: unavailable };
  }
  // A message has at most one thread, with the message's id (resources/channel.mdx).
  const existing = channel.threads.cache.get(target.messageId);
  if (existing) return { thread: existing, isNew: false };
  try {
    const thread = await channel.threads.create({
      startMessage: target.messageId,
      name: firstWordsTitle(question),
      autoArchiveDuration: adapter.discord.threadArchiveMinutes,
    });
    return { thread, isNew: true };
  } catch (error) {
    adapter.logger.warn(
      { err: error, channelId: channel.id },
      'could not open a thread for a message action',
    );
    const known = await channel.threads.fetch(target.messageId).catch(() => null);
    return known ? { thread: known, isNew: false } : { reason: unavailable };
  }
}

function askModal(customId: string): ModalBuilder {
  return new ModalBuilder()
    .setCustomId(customId)
    .setTitle('Ask parley about this message')
    .addLabelComponents(
      new LabelBuilder()
        .setLabel('Your question')
        .setTextInputComponent(
          new TextInputBuilder()
            .setCustomId(questionInputId)
            .setStyle(TextInputStyle.Paragraph)
            .setMaxLength(4_000)
            .setRequired(true),
        ),
    );
}

function questionTargetOf(message: Message, adapter: DiscordAdapterContext): QuestionTarget {
  return {
    channelId: message.channelId,
    messageId: message.id,
    authorName: message.member?.displayName ?? message.author.displayName ?? message.author.username,
    text: readableTextOf(message, botUserIdOf(adapter), { withEmbeds: true }),
    ...attachmentsOf(message, adapter),
  };
}

function attachmentsOf(message: Message, adapter: DiscordAdapterContext) {
  const attachments = attachmentsWithForwarded(message);
  const isImage = (attachment: (typeof attachments)[number]) =>
    (attachment.contentType ?? '').startsWith('image/') || imageExtensions.test(attachment.name);
  return {
    images: attachments
      .filter(isImage)
      .map((attachment) => discordImageAttachment(attachment, adapter.maxImageBytes, message.client)),
    documents: attachments
      .filter((attachment) => !isImage(attachment))
      .map((attachment) =>
        discordDocumentAttachment(attachment, adapter.services.maxDocumentBytes, message.client),
      ),
  };
}

function conversationKeyOfInteraction(
  interaction: MessageContextMenuCommandInteraction | ModalSubmitInteraction,
) {
  return discordConversationKey({
    guildId: interaction.guildId,
    channelId: interaction.channelId ?? '',
    channel: interaction.channel,
  });
}

/**
 * The target message and every later one, oldest first (at most 200), or undefined where the bot
 * cannot read the channel: not in it (a user install), or without Read Message History.
 */
async function readMessagesFrom({
  interaction,
  adapter,
}: {
  interaction: MessageContextMenuCommandInteraction;
  adapter: DiscordAdapterContext;
}): Promise<ChannelMessage[] | undefined> {
  const channel = interaction.channel;
  if (!channel || !('messages' in channel)) return undefined;
  if (
    'permissionsFor' in channel &&
    channel.permissionsFor(botUserIdOf(adapter))?.has(PermissionFlagsBits.ReadMessageHistory) === false
  ) {
    return undefined;
  }
  const collected: Message[] = [interaction.targetMessage];
  let after = interaction.targetId;
  try {
    while (collected.length < maxMessagesFromHere) {
      const page = await channel.messages.fetch({ after, limit: 100 });
      if (page.size === 0) break;
      const sorted = [...page.values()].sort(
        (first, second) => first.createdTimestamp - second.createdTimestamp,
      );
      collected.push(...sorted);
      after = sorted.at(-1)?.id ?? after;
      if (page.size < 100) break;
    }
  } catch (error) {
    adapter.logger.info(
      { err: error, channelId: interaction.channelId },
      'cannot read the channel for Summarize from here',
    );
    return undefined;
  }
  return collected.slice(0, maxMessagesFromHere).map((message) => ({
    authorName: message.member?.displayName ?? message.author.displayName ?? message.author.username,
    text: readableTextOf(message, '', { withEmbeds: true }),
    createdAt: message.createdAt.toISOString(),
    isBot: message.author.bot,
  }));
}
