import { type ApiArguments, arrayArgument, stringArgument } from './api-arguments.ts';
import { assertMayPost, requireChannel, requireMessage, slackMessageOf } from './chat-methods.ts';
import type { ApiMethod, FakeSlackState } from './fake-slack-state.ts';
import { mentionsInText } from './mention-scanner.ts';
import { assertValidBlocks, messageLimits } from './message-limits.ts';
import { SlackApiError } from './slack-api-error.ts';
import { nextMessageTs } from './slack-ids.ts';
import { type StreamChunk, type TaskDisplayMode, taskDisplayModeOf, validChunks } from './stream-chunks.ts';

/** The streaming methods, each of which can carry text. */
export type StreamMethod = 'chat.startStream' | 'chat.appendStream' | 'chat.stopStream';

/** One call that wrote to a native stream. */
export interface StreamWrite {
  method: StreamMethod;
  /** The markdown this call added: its `markdown_text` plus its `markdown_text` chunks. */
  markdownText: string;
  /** The `chunks` argument (markdown, task and plan updates), each checked against the docs. */
  chunks: StreamChunk[];
  atMs: number;
}

/** A message written with Slack's native streaming, from `chat.startStream` to `chat.stopStream`. */
export interface NativeStream {
  channel: string;
  /** The streamed message's `ts`. */
  ts: string;
  threadTs: string;
  recipientTeamId: string | undefined;
  recipientUserId: string | undefined;
  state: 'streaming' | 'stopped';
  /** Every call that wrote to it, in order. */
  writes: StreamWrite[];
  /** All markdown so far: what a person sees. */
  text: string;
  /** How its task updates render (chat.startStream `task_display_mode`). */
  taskDisplayMode: TaskDisplayMode;
  /** Each task as its latest `task_update` left it, in the order they first appeared. */
  tasks: Map<string, Extract<StreamChunk, { type: 'task_update' }>>;
  /** The plan's title, from the latest `plan_update`. */
  planTitle: string | undefined;
  /** Blocks `chat.stopStream` put under the message. */
  blocks: unknown[] | undefined;
  startedAtMs: number;
  stoppedAtMs: number | undefined;
  /**
   * The person pressed Slack's stop control (agent_session_stopped): no more appends, but the app
   * still ends it with chat.stopStream (see agent-view.ts).
   */
  isStoppedByUser?: boolean;
}

function assertStreamingAvailable(state: FakeSlackState): void {
  if (state.nativeStreaming !== 'enabled') {
    throw new SlackApiError(state.nativeStreaming);
  }
}

/** The markdown a call adds, checking Slack's 12,000-character limit on `markdown_text`. */
function writtenMarkdown(args: ApiArguments): { markdownText: string; chunks: StreamChunk[] } {
  const markdownText = stringArgument(args, 'markdown_text') ?? '';
  if (markdownText.length > messageLimits.maxStreamMarkdownCharacters) {
    throw new SlackApiError('msg_too_long');
  }
  const chunks = validChunks(args.chunks);
  let chunkText = '';
  for (const chunk of chunks) {
    if (chunk.type === 'markdown_text') chunkText += chunk.text;
  }
  if (chunkText.length > messageLimits.maxStreamMarkdownCharacters) {
    throw new SlackApiError('msg_too_long');
  }
  return { markdownText: markdownText + chunkText, chunks };
}

function streamOf(state: FakeSlackState, args: ApiArguments): NativeStream {
  const message = requireMessage(state, args);
  const stream = state.streams.find((entry) => entry.channel === message.channel && entry.ts === message.ts);
  if (stream === undefined || stream.state !== 'streaming') {
    throw new SlackApiError('message_not_in_streaming_state');
  }
  return stream;
}

/**
 * Slack ends a stream that has gone without writes for a while: the message keeps the text streamed
 * so far, and later appends and stops answer `message_not_in_streaming_state` (chat.appendStream and
 * chat.stopStream, "Errors"). Slack publishes no duration; the fake's is an option.
 */
function armIdleEnd(state: FakeSlackState, stream: NativeStream): void {
  const key = `${stream.channel} ${stream.ts}`;
  clearTimeout(state.streamIdleTimers.get(key));
  const timer = setTimeout(() => {
    state.streamIdleTimers.delete(key);
    if (stream.state !== 'streaming') return;
    finish(state, stream, undefined);
    state.notifyChange();
  }, state.streamIdleTimeoutMs);
  timer.unref();
  state.streamIdleTimers.set(key, timer);
}

function finish(state: FakeSlackState, stream: NativeStream, blocks: unknown[] | undefined): void {
  clearTimeout(state.streamIdleTimers.get(`${stream.channel} ${stream.ts}`));
  state.streamIdleTimers.delete(`${stream.channel} ${stream.ts}`);
  stream.state = 'stopped';
  stream.stoppedAtMs = Date.now();
  stream.blocks = blocks;
  const message = state.messages.find(stream.channel, stream.ts);
  if (message !== undefined) {
    message.streamingState = 'completed';
    message.blocks = blocks;
  }
}

/**
 * Who a stream may be for (chat.startStream, "Errors"): `team_not_found` for a recipient team that is
 * not the workspace, `user_not_found` for a deactivated recipient, `messages_tab_disabled` for a DM
 * when the app's Messages tab is off, and `restricted_action…` where posting is restricted.
 */
function assertRecipientAllowed(state: FakeSlackState, channel: string, args: ApiArguments): void {
  const target = state.directory.channel(channel);
  if (target.isIm && !state.isMessagesTabEnabled) throw new SlackApiError('messages_tab_disabled');
  assertMayPost(state, channel);
  const recipientTeamId = stringArgument(args, 'recipient_team_id');
  if (recipientTeamId !== undefined && !isCallersWorkspace(state, recipientTeamId)) {
    throw new SlackApiError('team_not_found');
  }
  const recipientUserId = stringArgument(args, 'recipient_user_id');
  if (recipientUserId !== undefined && state.directory.user(recipientUserId).isDeleted) {
    throw new SlackApiError('user_not_found');
  }
}

function write(state: FakeSlackState, stream: NativeStream, method: StreamMethod, args: ApiArguments): void {
  const { markdownText, chunks } = writtenMarkdown(args);
  stream.writes.push({ method, markdownText, chunks, atMs: Date.now() });
  for (const chunk of chunks) {
    if (chunk.type === 'task_update') stream.tasks.set(chunk.id, chunk);
    else if (chunk.type === 'plan_update') stream.planTitle = chunk.title;
  }
  const mentionsBefore = mentionsInText(stream.text).length;
  stream.text += markdownText;
  // The message is one text however it was cut into appends, so a mention split across two of them
  // counts once it is whole.
  for (const mention of mentionsInText(stream.text).slice(mentionsBefore)) {
    state.mentions.push({ ...mention, source: method, channel: stream.channel });
  }
  const message = state.messages.find(stream.channel, stream.ts);
  if (message !== undefined) {
    message.text = stream.text;
    message.updatedAtMs = Date.now();
  }
  if (method !== 'chat.stopStream') armIdleEnd(state, stream);
}

/**
 * chat.startStream (docs.slack.dev/reference/methods/chat.startStream): `thread_ts` is required
 * ("Streamed messages should always be replies"), and `recipient_team_id` and `recipient_user_id` are
 * "Required when streaming to channels"; the refusals are in assertRecipientAllowed.
 */
const startStream: ApiMethod = (state, args) => {
  assertStreamingAvailable(state);
  const channel = requireChannel(args);
  const threadTs = stringArgument(args, 'thread_ts');
  if (threadTs === undefined) {
    throw new SlackApiError('invalid_arguments', {
      response_metadata: { messages: ['[ERROR] missing required field: thread_ts'] },
    });
  }
  const recipientTeamId = stringArgument(args, 'recipient_team_id');
  const recipientUserId = stringArgument(args, 'recipient_user_id');
  // Outside a DM Slack must know whom the stream is for.
  if (!state.directory.channel(channel).isIm) {
    if (recipientTeamId === undefined) {
      throw new SlackApiError('missing_recipient_team_id');
    }
    if (recipientUserId === undefined) {
      throw new SlackApiError('missing_recipient_user_id');
    }
  }
  assertRecipientAllowed(state, channel, args);
  // Checked before anything is stored, so a refused start leaves no half-made stream behind.
  writtenMarkdown(args);
  const taskDisplayMode = taskDisplayModeOf(args.task_display_mode);
  const ts = nextMessageTs();
  state.messages.add({
    channel,
    ts,
    threadTs,
    user: state.workspace.botUserId,
    botId: state.workspace.botId,
    text: '',
    streamingState: 'in_progress',
  });
  const stream: NativeStream = {
    channel,
    ts,
    threadTs,
    recipientTeamId,
    recipientUserId,
    state: 'streaming',
    writes: [],
    text: '',
    taskDisplayMode,
    tasks: new Map(),
    planTitle: undefined,
    blocks: undefined,
    startedAtMs: Date.now(),
    stoppedAtMs: undefined,
  };
  state.streams.push(stream);
  write(state, stream, 'chat.startStream', args);
  return { channel, ts };
};

/** chat.appendStream ("Errors"): `no_text` without markdown, `message_not_in_streaming_state` once ended. */
const appendStream: ApiMethod = (state, args) => {
  assertStreamingAvailable(state);
  const stream = streamOf(state, args);
  if (stream.isStoppedByUser) throw new SlackApiError('message_not_in_streaming_state');
  if (args.markdown_text === undefined && args.chunks === undefined) {
    throw new SlackApiError('no_text');
  }
  write(state, stream, 'chat.appendStream', args);
  return { channel: stream.channel, ts: stream.ts };
};

const stopStream: ApiMethod = (state, args) => {
  assertStreamingAvailable(state);
  const stream = streamOf(state, args);
  const blocks = arrayArgument(args, 'blocks');
  if (blocks !== undefined) {
    assertValidBlocks(blocks);
  }
  write(state, stream, 'chat.stopStream', args);
  finish(state, stream, blocks);
  const message = requireMessage(state, args);
  if (args.metadata !== undefined) {
    message.metadata = args.metadata;
  }
  return { channel: stream.channel, ts: stream.ts, message: slackMessageOf(state, message) };
};

/** `chat.startStream`, `chat.appendStream`, `chat.stopStream`. */
export const streamMethods: Record<StreamMethod, ApiMethod> = {
  'chat.startStream': startStream,
  'chat.appendStream': appendStream,
  'chat.stopStream': stopStream,
};

/**
 * Whether a workspace is the one the call's token belongs to: the fake's own with its bot token; an
 * installation's workspace (or, org-wide, any workspace of its org) with an installed token.
 */
function isCallersWorkspace(state: FakeSlackState, teamId: string): boolean {
  const caller = state.caller;
  if (caller === undefined) return teamId === state.workspace.teamId;
  if (!caller.isEnterpriseInstall) return teamId === caller.teamId;
  return state.oauth.workspaces.get(teamId)?.enterpriseId === caller.enterpriseId;
}
