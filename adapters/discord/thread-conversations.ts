import { type Message, PermissionFlagsBits, type ThreadChannel } from 'discord.js';
import { titleConversation } from '../../commands/conversation-title.ts';
import type { ReplyOutcome } from '../../src/conversation/engine.ts';
import { firstWordsTitle } from '../../src/conversation/title-writer.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { forumIdFor, openForumPost, originOfMessage, pointToPost } from './forum-posts.ts';

/** Where thread mode answers a question: a thread or post of its own, or the channel (with a reason). */
export interface ConversationThread {
  readonly thread: ThreadChannel | undefined;
  /** Why the answer stays in the channel, for the person to read; undefined when nothing needs saying. */
  readonly problem: string | undefined;
}

/**
 * Thread mode's place for a question asked in a text channel: a post in the forum or media channel
 * DISCORD_THREAD_FORUMS names for the channel (pointed to from the channel), or else a thread
 * opened from the message.
 */
export async function openConversationThread({
  message,
  question,
  adapter,
}: {
  message: Message;
  question: string;
  adapter: DiscordAdapterContext;
}): Promise<ConversationThread> {
  const forumId = forumIdFor(message.channelId, adapter);
  if (forumId !== undefined) {
    const outcome = await openForumPost({ origin: originOfMessage(message), forumId, question, adapter });
    if (outcome.post) {
      await pointToPost({ message, post: outcome.post, adapter });
      return { thread: outcome.post, problem: undefined };
    }
    if (outcome.problem !== undefined) return { thread: undefined, problem: outcome.problem };
  }
  return { thread: await openThreadFromMessage({ message, question, adapter }), problem: undefined };
}

/**
 * Opens a public thread from a person's message for parley to answer in (resources/channel.mdx,
 * "Start Thread from Message": the thread takes the message's id). Named for now after the
 * question's first words; the title model renames it after the first exchange. Undefined, with a
 * log line, when parley may not create threads there: the answer then goes in the channel.
 */
export async function openThreadFromMessage({
  message,
  question,
  adapter,
}: {
  message: Message;
  question: string;
  adapter: DiscordAdapterContext;
}): Promise<ThreadChannel | undefined> {
  const channel = message.channel;
  const botUserId = adapter.client.user?.id ?? '';
  if (!('permissionsFor' in channel) || channel.isThread() || !('threads' in channel)) return undefined;
  const permissions = channel.permissionsFor(botUserId);
  // topics/permissions.mdx: CREATE_PUBLIC_THREADS starts a thread, SEND_MESSAGES_IN_THREADS writes in it.
  const missing = [
    [PermissionFlagsBits.CreatePublicThreads, 'Create Public Threads'],
    [PermissionFlagsBits.SendMessagesInThreads, 'Send Messages in Threads'],
  ]
    .filter(([flag]) => permissions?.has(flag as bigint) === false)
    .map(([, name]) => name);
  if (missing.length > 0) {
    adapter.logger.warn(
      { channelId: channel.id, missing },
      'reply mode is thread but parley may not open threads here; answering in the channel',
    );
    return undefined;
  }
  try {
    return await message.startThread({
      name: firstWordsTitle(question),
      autoArchiveDuration: adapter.discord.threadArchiveMinutes,
    });
  } catch (error) {
    adapter.logger.warn(
      { err: error, channelId: channel.id, messageId: message.id },
      'could not open a thread for the reply; answering in the channel',
    );
    return undefined;
  }
}

/**
 * After the first exchange of a thread parley opened: the title model names the thread. A title
 * is a nicety, so nothing here fails the conversation; the rename budget is shared with /title.
 */
export async function titleThreadAfterFirstExchange({
  thread,
  question,
  outcome,
  adapter,
  requester,
  conversationKey,
}: {
  thread: ThreadChannel;
  question: string;
  outcome: ReplyOutcome;
  adapter: DiscordAdapterContext;
  /** Who asked: the title is paid from their budgets. */
  requester: { readonly id: string; readonly roleIds: readonly string[] };
  conversationKey: string;
}): Promise<void> {
  if (outcome.status !== 'complete' || outcome.delivered.text.trim() === '') return;
  const { services, logger } = adapter;
  const written = await titleConversation({
    services,
    requester,
    conversationKey,
    exchange: { question, answer: outcome.delivered.text },
  });
  try {
    const renamed = await adapter.threadRenames.rename(thread, written.title);
    logger.info(
      {
        threadId: thread.id,
        origin: written.origin,
        status: renamed.status,
        totalTokens: written.usage.totalTokens,
      },
      'thread titled after its first exchange',
    );
  } catch (error) {
    logger.warn({ err: error, threadId: thread.id }, 'could not rename the thread');
  }
}
