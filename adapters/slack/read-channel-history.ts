import type { webApi } from '@slack/bolt';
import type { ChannelMessage } from '../../commands/define-command.ts';
import { UserFacingError } from '../../src/user-facing-error.ts';
import { explainSlackError, retryAfterSecOf } from './slack-errors.ts';
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
 * so /summarize sees the whole discussion, not only what the bot took part in. When Slack gives fewer
 * than asked for (the limits of apps outside the Marketplace), `onNote` hears why, in a sentence for
 * the person.
 */
export async function readChannelHistory({
  client,
  channel,
  threadTs,
  limit,
  botUserId,
  directory,
  onNote,
  fromTs,
}: {
  client: webApi.WebClient;
  channel: string;
  threadTs: string | undefined;
  limit: number;
  /** Only this message and the ones after it ("Summarize from here"), compared at Slack's precision. */
  fromTs?: string;
  botUserId: string | undefined;
  directory: UserDirectory;
  onNote?: (note: string) => void;
}): Promise<ChannelMessage[]> {
  const { messages, isCapped } = await fetchMessages({ client, channel, threadTs, limit });
  const nameOfUser = async (userId: string) => (await directory.lookUp({ client, userId })).name;
  const readable = messages
    .filter((message) => readableSubtypes.has(message.subtype))
    .filter((message) => fromTs === undefined || isAtOrAfter(message.ts ?? '0', fromTs))
    .slice(-limit);
  if (isCapped && readable.length < limit) {
    onNote?.(
      `Slack let me read only the ${threadTs ? 'first' : 'last'} ${readable.length} of the ${limit} messages you asked for: apps from outside the Slack Marketplace may read ${slackLimits.nonMarketplaceHistoryPage} messages a minute.`,
    );
  }
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

/**
 * Oldest first. A thread is read from its start (Slack pages replies oldest first), a channel from
 * now. `isCapped`: Slack returned a page smaller than asked for while more remained, which is its
 * per-call cap for apps outside the Marketplace; those read at Tier 1 (one call a minute), so reading
 * on would only draw a 429, and parley stops there.
 */
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
}): Promise<{ messages: HistoryMessage[]; isCapped: boolean }> {
  const pageSize = Math.min(slackLimits.historyPageSize, limit + 20);
  const pages: HistoryMessage[][] = [];
  let count = 0;
  let cursor: string | undefined;
  let isCapped = false;
  for (let page = 0; page < maxPages; page += 1) {
    const response = await fetchPage({ client, channel, threadTs, pageSize, cursor, isFirst: page === 0 });
    if (response === undefined) {
      isCapped = true;
      break;
    }
    const pageMessages = (response.messages ?? []) as HistoryMessage[];
    pages.push(pageMessages);
    count += pageMessages.length;
    cursor = response.response_metadata?.next_cursor || undefined;
    // A channel is read newest first, so once enough messages are in, older pages are not needed.
    if (cursor === undefined || (!threadTs && count >= limit + 20)) break;
    if (pageMessages.length < pageSize) {
      isCapped = true;
      break;
    }
  }
  // Channel pages run newest first, and so does each page: both orders are turned around.
  const messages = threadTs ? pages.flat() : pages.reverse().flatMap((page) => [...page].reverse());
  return { messages, isCapped };
}

/**
 * One page. A 429 on the first page is a sentence for the person (nothing was read); on a later one
 * the pages so far are used (undefined).
 */
async function fetchPage({
  client,
  channel,
  threadTs,
  pageSize,
  cursor,
  isFirst,
}: {
  client: webApi.WebClient;
  channel: string;
  threadTs: string | undefined;
  pageSize: number;
  cursor: string | undefined;
  isFirst: boolean;
}) {
  try {
    const paging = { limit: pageSize, ...(cursor ? { cursor } : {}) };
    return threadTs
      ? await client.conversations.replies({ channel, ts: threadTs, ...paging })
      : await client.conversations.history({ channel, ...paging });
  } catch (error) {
    const retryAfterSec = retryAfterSecOf(error);
    if (retryAfterSec === undefined) throw explainSlackError(error);
    if (!isFirst) return undefined;
    throw new UserFacingError({
      message: `slack rate limited conversations.* (retry after ${retryAfterSec} s)`,
      userMessage: `Slack is limiting how often I may read this channel. Try again in ${retryAfterSec} seconds.`,
      cause: error,
    });
  }
}

// Slack timestamps are "seconds.microseconds" strings: compared as numbers they lose the microseconds.
function isAtOrAfter(ts: string, fromTs: string): boolean {
  const [seconds = '0', fraction = ''] = ts.split('.');
  const [fromSeconds = '0', fromFraction = ''] = fromTs.split('.');
  if (Number(seconds) !== Number(fromSeconds)) return Number(seconds) > Number(fromSeconds);
  return fraction.padEnd(6, '0') >= fromFraction.padEnd(6, '0');
}
