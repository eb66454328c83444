import { type ApiArguments, arrayArgument, stringArgument } from './api-arguments.ts';
import type { ApiMethod, FakeSlackState } from './fake-slack-state.ts';
import { assertValidBlocks, truncateText } from './message-limits.ts';
import { type StoredMessage, toSlackMessage } from './message-store.ts';
import { SlackApiError } from './slack-api-error.ts';
import { nextMessageTs } from './slack-ids.ts';

/** The `channel` argument; Slack answers `channel_not_found` when it is missing (chat.* "Errors"). */
export function requireChannel(args: ApiArguments, name = 'channel'): string {
  const channel = stringArgument(args, name);
  if (channel === undefined) {
    throw new SlackApiError('channel_not_found');
  }
  return channel;
}

/**
 * Text and blocks of a message-shaped call: at least one of them (`no_text` otherwise, chat.postMessage
 * "Errors"), blocks within Block Kit limits (`invalid_blocks`).
 */
function messageContent(args: ApiArguments): { text: string; blocks: unknown[] | undefined } {
  const blocks = arrayArgument(args, 'blocks');
  const attachments = arrayArgument(args, 'attachments');
  const text = stringArgument(args, 'text') ?? stringArgument(args, 'markdown_text');
  if (text === undefined && blocks === undefined && attachments === undefined) {
    throw new SlackApiError('no_text');
  }
  if (blocks !== undefined) {
    assertValidBlocks(blocks);
  }
  return { text: text ?? '', blocks };
}

/**
 * Refuses a post where posting is restricted: chat.postMessage and chat.startStream document
 * `restricted_action` ("A workspace preference prevents the authenticated user from posting") and its
 * `restricted_action_read_only_channel` / `_thread_only_channel` / `_non_threadable_channel` variants.
 */
export function assertMayPost(state: FakeSlackState, channel: string): void {
  const restriction = state.directory.channel(channel).postingRestriction;
  if (restriction !== undefined) throw new SlackApiError(restriction);
}

/** The message of `channel` and `ts`, else `message_not_found`. */
export function requireMessage(state: FakeSlackState, args: ApiArguments): StoredMessage {
  const channel = requireChannel(args);
  const ts = stringArgument(args, 'ts');
  const message = ts === undefined ? undefined : state.messages.find(channel, ts);
  if (message === undefined) {
    throw new SlackApiError('message_not_found');
  }
  return message;
}

/** A message the bot posts, in Slack's shape for a response. */
export function slackMessageOf(state: FakeSlackState, message: StoredMessage): Record<string, unknown> {
  return toSlackMessage(message, { teamId: state.workspace.teamId, appId: state.workspace.appId });
}

const postMessage: ApiMethod = (state, args) => {
  // chat.postMessage (docs.slack.dev/reference/methods/chat.postMessage, "Channels"): a user's id as
  // the channel posts to the app's DM with them (its Messages tab); the answer names the DM's id.
  const requested = requireChannel(args);
  const channel = /^[UW]/.test(requested) ? state.directory.directMessageWith(requested).id : requested;
  assertMayPost(state, channel);
  const { text, blocks } = messageContent(args);
  const message = state.messages.add({
    channel,
    ts: nextMessageTs(),
    threadTs: stringArgument(args, 'thread_ts'),
    user: state.workspace.botUserId,
    botId: state.workspace.botId,
    text: truncateText(text),
    blocks,
    metadata: args.metadata,
  });
  return { channel, ts: message.ts, message: slackMessageOf(state, message) };
};

/**
 * chat.update (docs.slack.dev/reference/methods/chat.update): `message_not_found`,
 * `cant_update_message` for another author's message, `no_text`, `msg_too_long`; blocks left out of
 * the call are kept ("If you don't include blocks, the message's previous blocks are retained").
 */
const update: ApiMethod = (state, args) => {
  const message = requireMessage(state, args);
  if (message.botId !== state.workspace.botId) {
    throw new SlackApiError('cant_update_message');
  }
  const text = stringArgument(args, 'text');
  const blocks = arrayArgument(args, 'blocks');
  if (text === undefined && blocks === undefined && args.attachments === undefined) {
    throw new SlackApiError('no_text');
  }
  if (text !== undefined && text.length > state.maxUpdateTextCharacters) {
    throw new SlackApiError('msg_too_long');
  }
  if (blocks !== undefined) {
    assertValidBlocks(blocks);
  }
  // Like Slack: an update replaces the text; blocks are kept unless the call sends new ones.
  message.text = text ?? '';
  if (blocks !== undefined) {
    message.blocks = blocks.length === 0 ? undefined : blocks;
  }
  message.editCount += 1;
  message.updatedAtMs = Date.now();
  return {
    channel: message.channel,
    ts: message.ts,
    text: message.text,
    message: slackMessageOf(state, message),
  };
};

/** chat.delete ("Errors"): a bot may delete only its own messages, else `cant_delete_message`. */
const deleteMessage: ApiMethod = (state, args) => {
  const message = requireMessage(state, args);
  if (message.botId !== state.workspace.botId) {
    throw new SlackApiError('cant_delete_message');
  }
  state.messages.remove(message.channel, message.ts);
  return { channel: message.channel, ts: message.ts };
};

const postEphemeral: ApiMethod = (state, args) => {
  const channel = requireChannel(args);
  const user = stringArgument(args, 'user');
  // chat.postEphemeral (docs.slack.dev/reference/methods/chat.postEphemeral, "Errors"):
  // user_not_in_channel, "Intended recipient is not in the specified channel".
  if (user === undefined || !state.directory.isMember(channel, user)) {
    throw new SlackApiError('user_not_in_channel');
  }
  const { text, blocks } = messageContent(args);
  state.ephemeralMessages.push({
    channel,
    user,
    text: truncateText(text),
    blocks,
    threadTs: stringArgument(args, 'thread_ts'),
    source: 'chat.postEphemeral',
    atMs: Date.now(),
  });
  return { message_ts: nextMessageTs() };
};

/** `chat.postMessage`, `chat.update`, `chat.delete`, `chat.postEphemeral`. */
export const chatMethods: Record<string, ApiMethod> = {
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.delete': deleteMessage,
  'chat.postEphemeral': postEphemeral,
};
