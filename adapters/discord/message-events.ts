import { type Message, PermissionFlagsBits, type SendableChannels, type ThreadChannel } from 'discord.js';
import { replyWithActions, type TurnFacts, type TurnToRead } from '../../commands/chat-reply.ts';
import type { AccessVerdict } from '../../src/access/access-gate.ts';
import { conversationKeyOf, type IncomingTurn, placeOfConversation } from '../../src/conversation/turn.ts';
import { tracePlatformEvent } from '../../src/tracing/turn-spans.ts';
import { type DiscordAdapterContext, messageDedupeTtlMs } from './adapter-context.ts';
import { createChannelSurface } from './channel-surface.ts';
import { discordMessageActorOf } from './discord-actor.ts';
import { buildTurnFromMessage, conversationKeyOfMessage, sentAtMicrosOf } from './message-turn.ts';
import { replyModeOf } from './reply-mode.ts';
import { tellAskerTheAnswerIsDone } from './slow-answer-notice.ts';
import { openConversationThread, titleThreadAfterFirstExchange } from './thread-conversations.ts';

/** Answers a message when it is meant for the bot, streaming the reply into the channel. */
export async function handleMessage({
  message,
  adapter,
}: {
  message: Message;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  const botUserId = adapter.client.user?.id;
  if (!botUserId || message.author.bot || message.system || !message.channel.isSendable()) return;
  // The message takes its place in the conversation as it arrives: what follows may take one message
  // longer than the next, and must not change the order they are answered in.
  const place = adapter.services.engine.reservePlace(
    conversationKeyOfMessage(message),
    sentAtMicrosOf(message.id),
  );
  try {
    await answerInPlace({ message, adapter, botUserId, givePlaceUp: () => place.release() });
  } finally {
    place.release();
  }
}

async function answerInPlace({
  message,
  adapter,
  botUserId,
  givePlaceUp,
}: {
  message: Message;
  adapter: DiscordAdapterContext;
  botUserId: string;
  /** The turn is answered elsewhere (a thread of its own): its place in the channel frees now. */
  givePlaceUp: () => void;
}): Promise<void> {
  if (!(await shouldAnswer({ message, botUserId, adapter }))) return;
  // From here the message is a turn: one trace, from the event to the last write (and the title).
  await tracePlatformEvent(
    { name: 'discord message', conversationKey: conversationKeyOfMessage(message) },
    () => answerAddressedMessage({ message, adapter, botUserId, givePlaceUp }),
  );
}

async function answerAddressedMessage({
  message,
  adapter,
  botUserId,
  givePlaceUp,
}: {
  message: Message;
  adapter: DiscordAdapterContext;
  botUserId: string;
  givePlaceUp: () => void;
}): Promise<void> {
  // parley is active here: after a fresh identify, what came after the newest message is read.
  adapter.missedMessages.noteActive(message);
  const conversationKey = conversationKeyOfMessage(message);
  // The turn's one reading of the place's settings (issue 39): the gate, the reply mode, the engine
  // and the spend guard all use it. Unreadable (the store), each asks for itself and says so. It
  // starts beside the dedupe check, which does not depend on it: on a shared store each is a round
  // trip, and a message another process took costs only this read.
  const placeSettingsReading = adapter.services.places
    .settingsAt(placeOfConversation(conversationKey))
    .catch(() => undefined);
  if (!(await adapter.eventDeduper.isFirstSighting(`discord:message:${message.id}`, messageDedupeTtlMs))) {
    adapter.logger.debug({ messageId: message.id }, 'message already taken by this or another process');
    return;
  }
  const channel = message.channel;
  if (message.guild && 'permissionsFor' in channel) {
    const permissions = channel.permissionsFor(botUserId);
    const canSend = channel.isThread()
      ? permissions?.has(PermissionFlagsBits.SendMessagesInThreads)
      : permissions?.has(PermissionFlagsBits.SendMessages);
    if (canSend === false) {
      adapter.logger.warn({ channelId: channel.id }, 'mentioned in a channel where it may not send messages');
      await adapter.tellUnableToPost(
        message,
        channel.isThread() ? 'Send Messages in Threads' : 'Send Messages',
      );
      return;
    }
  }
  // The gate answers on the message's own facts, in every reply mode, before anything the message
  // points at is read: a refused person's files, links and mentions cost nothing.
  const placeSettings = await placeSettingsReading;
  const facts: TurnFacts = {
    actor: discordMessageActorOf(message),
    conversationKey,
    ...(placeSettings ? { placeSettings } : {}),
  };
  const verdict = await channelVerdict({ facts, adapter });
  const { thread, channelTurn, turn } = await placeTheTurn({ message, adapter, botUserId, facts, verdict });
  if (thread) givePlaceUp();
  // The channel was checked to be sendable on the way in.
  const answerChannel = (thread ?? channel) as SendableChannels;
  const surface = createChannelSurface({
    channel: answerChannel,
    outbound: adapter.outbound,
    // In its own thread the answer needs no reply reference: the thread starts at the question.
    ...(thread ? {} : { replyTo: message }),
    botUserId,
  });
  const outcome = await replyWithActions({
    services: adapter.services,
    turn,
    surface,
    beforeReply: async () => surface.showTyping?.(),
    // In a thread or post of its own the conversation is another place: its gate is asked there.
    // A verdict that could not be had (the store) is asked again there, and its failure said.
    ...(verdict && !thread ? { verdict } : {}),
  });
  await tellAskerTheAnswerIsDone({
    adapter,
    channel: answerChannel,
    outcome,
    askerId: message.author.id,
    askedAtMs: Math.floor(sentAtMicrosOf(message.id) / 1000),
    isInThread: answerChannel.isThread(),
  });
  if (thread && channelTurn) {
    await titleThreadAfterFirstExchange({
      thread,
      question: channelTurn.text,
      outcome,
      adapter,
      requester: facts.actor,
      conversationKey: turn.facts.conversationKey,
    });
  }
}

/**
 * Where the turn is answered and how it is read. Thread mode: a mention in a channel gets a thread
 * (or a forum post) of its own, which is then its conversation (in a forum or media channel every
 * message is in a post already). Only for someone parley may answer: a refused person leaves no
 * thread or post behind, and their message is read only if the gate lets them in.
 */
async function placeTheTurn({
  message,
  adapter,
  botUserId,
  facts,
  verdict,
}: {
  message: Message;
  adapter: DiscordAdapterContext;
  botUserId: string;
  facts: TurnFacts;
  verdict: AccessVerdict | undefined;
}): Promise<{ thread: ThreadChannel | undefined; channelTurn: IncomingTurn | undefined; turn: TurnToRead }> {
  const channel = message.channel;
  const readChannelTurn = () =>
    buildTurnFromMessage({
      message,
      botUserId,
      maxImageBytes: adapter.maxImageBytes,
      maxDocumentBytes: adapter.services.maxDocumentBytes,
      actor: facts.actor,
    });
  const isThreadMode =
    verdict?.isAllowed === true &&
    isAddressedToBot(message, botUserId) &&
    !channel.isThread() &&
    message.guild !== null &&
    (await replyModeOf({ message, adapter, settings: facts.placeSettings })) === 'thread';
  const channelTurn = isThreadMode ? await readChannelTurn() : undefined;
  const { thread, problem } = channelTurn
    ? await openConversationThread({ message, question: channelTurn.text, adapter })
    : { thread: undefined, problem: undefined };
  // A post's conversation is keyed by its forum, as every later message in it will be.
  const conversationKey = thread
    ? conversationKeyOf({
        platform: 'discord',
        workspace: message.guildId ?? 'dm',
        channel: thread.parentId ?? channel.id,
        thread: thread.id,
      })
    : facts.conversationKey;
  const read = async () => {
    const built = channelTurn ?? (await readChannelTurn());
    return { ...built, conversationKey, notices: [...(built.notices ?? []), ...(problem ? [problem] : [])] };
  };
  return { thread, channelTurn, turn: { facts: { ...facts, conversationKey }, read } };
}

/** The access gate's answer in the channel; undefined when it cannot say (the reply asks again). */
async function channelVerdict({
  facts,
  adapter,
}: {
  facts: TurnFacts;
  adapter: DiscordAdapterContext;
}): Promise<AccessVerdict | undefined> {
  return adapter.services.access
    .authorize({
      actor: facts.actor,
      conversationKey: facts.conversationKey,
      capability: { kind: 'command', name: 'chat' },
      ...(facts.placeSettings ? { settings: facts.placeSettings } : {}),
    })
    .catch(() => undefined);
}

/** Someone spoke to parley: a DM, or a mention of it in a server (a fact of the message itself). */
function isAddressedToBot(message: Message, botUserId: string): boolean {
  return !message.guild || message.mentions.users.has(botUserId);
}

async function shouldAnswer({
  message,
  botUserId,
  adapter,
}: {
  message: Message;
  botUserId: string;
  adapter: DiscordAdapterContext;
}): Promise<boolean> {
  if (!message.guild) return true;
  // A reply that pings the bot lists it among the mentions, so it arrives with its content too.
  if (message.mentions.users.has(botUserId)) return true;
  // Without Message Content every other guild message arrives empty: nothing to answer.
  if (!adapter.canReadMessageContent) return false;
  if (message.mentions.repliedUser?.id === botUserId) return true;
  const channel = message.channel;
  if ((await replyModeOf({ message, adapter })) === 'all') return true;
  // A thread the bot has answered in (or is answering in right now) is a conversation it is part of.
  if (channel.isThread()) {
    const key = conversationKeyOfMessage(message);
    return adapter.services.engine.isBusy(key) || (await adapter.services.history.load(key)).length > 0;
  }
  return false;
}
