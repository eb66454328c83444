import { type ApiArguments, booleanArgument, numberArgument, stringArgument } from './api-arguments.ts';
import { requireChannel } from './chat-methods.ts';
import type { ApiMethod, FakeSlackState } from './fake-slack-state.ts';
import { compareTs, type StoredMessage, toSlackMessage } from './message-store.ts';
import { SlackApiError } from './slack-api-error.ts';
import type { WorkspaceChannel } from './workspace.ts';

/**
 * The most messages one `conversations.history` or `conversations.replies` call returns to an app
 * distributed outside the Slack Marketplace (and its default `limit`): "Rate limit changes for
 * non-Marketplace apps", docs.slack.dev/changelog/2025/05/29/rate-limit-changes-for-non-marketplace-apps.
 * Such apps also get these methods at Tier 1 (see fake-slack.ts); internal apps keep 999 and Tier 3.
 */
export const nonMarketplacePageLimit = 15;

/**
 * One page of `messages` with Slack's cursor fields ("Pagination", docs.slack.dev/apis/web-api/
 * pagination): `limit`, `response_metadata.next_cursor` (empty on the last page) and `has_more`.
 */
function page(messages: StoredMessage[], args: ApiArguments, state: FakeSlackState) {
  const maxLimit = state.historyAccess === 'non-marketplace' ? nonMarketplacePageLimit : 999;
  const defaultLimit = state.historyAccess === 'non-marketplace' ? nonMarketplacePageLimit : 100;
  const limit = Math.min(Math.max(numberArgument(args, 'limit') ?? defaultLimit, 1), maxLimit);
  const cursor = stringArgument(args, 'cursor');
  const offset =
    cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64').toString('utf8').split(':')[1]);
  const slice = messages.slice(offset, offset + limit);
  const hasMore = offset + limit < messages.length;
  return {
    messages: slice.map((message) =>
      toSlackMessage(message, {
        teamId: state.workspace.teamId,
        appId: state.workspace.appId,
        replies:
          message.threadTs === undefined || message.threadTs === message.ts
            ? state.messages.replies(message.channel, message.ts)
            : [],
      }),
    ),
    has_more: hasMore,
    response_metadata: {
      next_cursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '',
    },
  };
}

/** Keeps messages within `oldest`/`latest` (exclusive unless `inclusive`), as Slack does. */
function withinRange(messages: StoredMessage[], args: ApiArguments): StoredMessage[] {
  const oldest = stringArgument(args, 'oldest');
  const latest = stringArgument(args, 'latest');
  const isInclusive = booleanArgument(args, 'inclusive');
  return messages.filter((message) => {
    const afterOldest = oldest === undefined || compareTs(message.ts, oldest) > (isInclusive ? -1 : 0);
    const beforeLatest = latest === undefined || compareTs(message.ts, latest) < (isInclusive ? 1 : 0);
    return afterOldest && beforeLatest;
  });
}

/** conversations.history: top-level messages and thread parents, newest first (its docs.slack.dev page). */
const history: ApiMethod = (state, args) => {
  const channel = requireChannel(args);
  // History shows top-level messages and thread parents, newest first; replies live in `replies`.
  const topLevel = state.messages
    .inChannel(channel)
    .filter((message) => message.threadTs === undefined || message.threadTs === message.ts)
    .reverse();
  return { ...page(withinRange(topLevel, args), args, state), pin_count: 0 };
};

/**
 * conversations.replies: the thread's parent, then its replies oldest first; any ts in the thread
 * names it; `thread_not_found` otherwise (its docs.slack.dev page).
 */
const replies: ApiMethod = (state, args) => {
  const channel = requireChannel(args);
  const ts = stringArgument(args, 'ts');
  const parent = ts === undefined ? undefined : state.messages.find(channel, ts);
  if (ts === undefined || parent === undefined) {
    throw new SlackApiError('thread_not_found');
  }
  // A ts inside a thread names the whole thread, as in Slack.
  const threadTs = parent.threadTs ?? parent.ts;
  const root = state.messages.find(channel, threadTs);
  const thread = [...(root === undefined ? [] : [root]), ...state.messages.replies(channel, threadTs)];
  return page(withinRange(thread, args), args, state);
};

const info: ApiMethod = (state, args) => {
  const channel = state.directory.channel(requireChannel(args));
  const createdSec = Math.floor(Date.now() / 1000) - 86_400;
  const base = {
    id: channel.id,
    created: createdSec,
    is_archived: false,
    is_org_shared: false,
    context_team_id: state.workspace.teamId,
  };
  if (channel.isIm) {
    return { channel: { ...base, is_im: true, user: channel.user, is_user_deleted: false, priority: 0 } };
  }
  return {
    channel: {
      ...base,
      name: channel.name,
      name_normalized: channel.name,
      is_channel: !channel.isPrivate,
      is_group: channel.isPrivate,
      is_im: false,
      is_mpim: false,
      is_private: channel.isPrivate,
      is_general: false,
      is_shared: false,
      is_ext_shared: false,
      is_member: true,
      creator: state.workspace.botUserId,
      topic: { value: '', creator: '', last_set: 0 },
      purpose: { value: '', creator: '', last_set: 0 },
    },
  };
};

/**
 * conversations.open (docs.slack.dev/reference/methods/conversations.open): opens or resumes a DM.
 * `users` is a comma-separated list, one id making a 1:1 DM; calling again for the same person
 * returns the same conversation, then with `no_op` and `already_open`; `channel` resumes an existing
 * DM instead. Neither: `users_list_not_supplied`; a deactivated person: `user_disabled`. Only the
 * channel's id comes back unless `return_im` asks for the whole IM object. Group DMs (several
 * users) are not modelled here.
 */
const open: ApiMethod = (state, args) => {
  const channelId = stringArgument(args, 'channel');
  const users = (stringArgument(args, 'users') ?? '')
    .split(',')
    .map((user) => user.trim())
    .filter((user) => user !== '');
  if (channelId === undefined && users.length === 0) throw new SlackApiError('users_list_not_supplied');
  if (users.length > 1) throw new Error('the fake Slack opens 1:1 DMs only; group DMs are not modelled');
  let existing: WorkspaceChannel | undefined;
  if (channelId !== undefined) {
    existing = state.directory.channel(channelId);
    if (!existing.isIm) throw new SlackApiError('method_not_supported_for_channel_type');
    if (existing.user === undefined) throw new SlackApiError('channel_not_found');
  }
  const userId = existing?.user ?? users[0] ?? '';
  if (state.directory.user(userId).isDeleted) throw new SlackApiError('user_disabled');
  const wasOpen = existing !== undefined || state.directory.hasDirectMessageWith(userId);
  const dm = existing ?? state.directory.directMessageWith(userId);
  const channel = booleanArgument(args, 'return_im')
    ? { id: dm.id, created: Math.floor(Date.now() / 1000), is_im: true, is_org_shared: false, user: userId }
    : { id: dm.id };
  return wasOpen ? { no_op: true, already_open: true, channel } : { channel };
};

/** `conversations.history`, `conversations.replies`, `conversations.info`, `conversations.open`. */
export const conversationMethods: Record<string, ApiMethod> = {
  'conversations.open': open,
  'conversations.history': history,
  'conversations.replies': replies,
  'conversations.info': info,
};
