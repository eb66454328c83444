import type { webApi } from '@slack/bolt';
import type { ChannelMessage } from '../../commands/define-command.ts';
import { explainSlackError } from './slack-errors.ts';
import { fileNameOf, type SlackFileObject } from './slack-files.ts';
import { slackLimits } from './slack-limits.ts';
import { resolveSlackText } from './slack-text.ts';
import type { UserDirectory } from './user-directory.ts';

/** A message as `conversations.history` and `conversations.replies` return it (the fields read here). */
export interface HistoryMessage {
  readonly ts?: string;
  readonly subtype?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly username?: string;
  readonly bot_profile?: { readonly name?: string };
  readonly text?: string;
  readonly files?: readonly SlackFileObject[];
}

const readableSubtypes = new Set([undefined, 'bot_message', 'file_share', 'thread_broadcast', 'me_message']);

/** Pages are only followed this far: 200 messages is /summarize's maximum, plus a margin for joins. */
const maxPages = 5;

/**
 * The newest `limit` messages of a thread (`conversations.replies`) or of a channel's top level
 * (`conversations.history`), oldest first, with mentions resolved to names, read from Slack itself
 * so /summarize sees the whole discussion, not only what the bot took part in.
 */
export async function readChannelHistory({
  client,
  channel,
  threadTs,
  limit,
  botUserId,
  directory,
}: {
  client: webApi.WebClient;
  channel: string;
  threadTs: string | undefined;
  limit: number;
  botUserId: string | undefined;
  directory: UserDirectory;
}): Promise<ChannelMessage[]> {
  let messages: HistoryMessage[];
  try {
    messages = await fetchMessages({ client, channel, threadTs, limit });
  } catch (error) {
    throw explainSlackError(error);
  }
  const nameOfUser = async (userId: string) => (await directory.lookUp({ client, userId })).name;
  const readable = messages.filter((message) => readableSubtypes.has(message.subtype)).slice(-limit);
  return Promise.all(
    readable.map(async (message) => {
      const isBot = message.bot_id !== undefined || message.subtype === 'bot_message';
      const authorName =
        message.user !== undefined
          ? await nameOfUser(message.user)
          : (message.bot_profile?.name ?? message.username ?? 'a bot');
      const text = await resolveSlackText({ text: message.text ?? '', botUserId, nameOfUser });
      const files = (message.files ?? []).map((file) => `[file ${fileNameOf(file)}]`);
      return {
        authorName,
        text: [text, ...files].filter(Boolean).join('\n'),
        createdAt: new Date(Number(message.ts ?? 0) * 1000).toISOString(),
        isBot: isBot || message.user === botUserId,
      };
    }),
  );
}

/** Oldest first. A thread is read from its start (Slack pages replies oldest first), a channel from now. */
async function fetchMessages({
  client,
  channel,
  threadTs,
  limit,
}: {
  client: webApi.WebClient;
  channel: string;
  threadTs: string | undefined;
  limit: number;
}): Promise<HistoryMessage[]> {
  const pageSize = Math.min(slackLimits.historyPageSize, limit + 20);
  const pages: HistoryMessage[][] = [];
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const response = threadTs
      ? await client.conversations.replies({
          channel,
          ts: threadTs,
          limit: pageSize,
          ...(cursor ? { cursor } : {}),
        })
      : await client.conversations.history({ channel, limit: pageSize, ...(cursor ? { cursor } : {}) });
    const pageMessages = (response.messages ?? []) as HistoryMessage[];
    pages.push(pageMessages);
    count += pageMessages.length;
    cursor = response.response_metadata?.next_cursor || undefined;
    // A channel is read newest first, so once enough messages are in, older pages are not needed.
    if (cursor === undefined || (!threadTs && count >= limit + 20)) break;
  }
  // Channel pages run newest first, and so does each page: both orders are turned around.
  return threadTs ? pages.flat() : pages.reverse().flatMap((page) => [...page].reverse());
}
