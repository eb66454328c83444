import type { Action } from '../../src/delivery/card.ts';
import { preformatTables, withoutTrailingTableLines } from './markdown-tables.ts';
import { neutraliseMentions, withoutUnclosedTail } from './mention-guard.ts';
import { renderActionsBlock } from './render-blocks.ts';
import type { ReplyPlace } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import type { PlanUpdateChunk, TaskUpdateChunk } from './task-cards.ts';

/** What a stream carries besides its Markdown: tool steps as task cards and the plan's title. */
export type TaskChunk = TaskUpdateChunk | PlanUpdateChunk;

/** A message written with Slack's native streaming (`chat.startStream` … `chat.stopStream`). */
export interface NativeStream {
  readonly ts: string;
  /** The Markdown Slack has received so far (mentions made inert); a stream can only grow. */
  streamedText: string;
  isOpen: boolean;
}

/**
 * How a write to a stream went: `written`; `diverged` when the new text does not continue what was
 * streamed (delivery moved a rollover cut back), or `closed` when Slack had already ended the
 * stream. In both of the latter the message must be rewritten whole with `chat.update`.
 */
export type StreamWriteResult = 'written' | 'diverged' | 'closed';

// While a reply streams, delivery closes a code block that is still open at the end of each edit so
// it renders, and takes that fence back when the block continues. A stream cannot take text back, so
// a fence line at the very end waits until more text follows it or the stream stops.
const trailingFenceLine = /\n[ \t]*(`{3,}|~{3,})[ \t]*$/;

/**
 * The part of `text` that can be streamed now, as Slack is sent it: without a fence line at the end
 * (see {@link trailingFenceLine}), a `<` not yet closed (it may become a mention) or table lines that
 * may still grow, with tables drawn as preformatted text and mentions made inert. Empty when nothing
 * can be streamed yet.
 */
export function streamableHead(text: string): string {
  const head = withoutTrailingTableLines(withoutUnclosedTail(text.replace(trailingFenceLine, '')));
  return /\S/.test(head) ? finalForm(head) : '';
}

/** A message's final text as Slack is sent it: tables preformatted, mentions inert, nothing held back. */
function finalForm(text: string): string {
  return neutraliseMentions(preformatTables(text));
}

/**
 * Starts a stream in the place's thread with the first text (its {@link streamableHead} must not be
 * empty), or with no text and the first task cards, shown as `taskDisplayMode` says.
 */
export async function startNativeStream({
  place,
  text,
  chunks = [],
  taskDisplayMode,
}: {
  place: ReplyPlace & { threadTs: string; recipientUserId: string };
  text: string;
  chunks?: readonly TaskChunk[];
  taskDisplayMode?: 'timeline' | 'plan';
}): Promise<NativeStream> {
  const head = streamableHead(text);
  const response = await place.client.chat.startStream({
    channel: place.channel,
    thread_ts: place.threadTs,
    recipient_team_id: place.teamId,
    recipient_user_id: place.recipientUserId,
    ...(head === '' && chunks.length > 0 ? {} : { markdown_text: head }),
    ...(chunks.length > 0 ? { chunks: [...chunks] } : {}),
    ...(taskDisplayMode === undefined ? {} : { task_display_mode: taskDisplayMode }),
  });
  if (typeof response.ts !== 'string') throw new Error('chat.startStream answered without a ts');
  return { ts: response.ts, streamedText: head, isOpen: true };
}

/** Appends what `text` adds to the stream; the end of a message goes with `stopNativeStream`. */
export async function appendToNativeStream({
  place,
  stream,
  text,
}: {
  place: ReplyPlace;
  stream: NativeStream;
  text: string;
}): Promise<StreamWriteResult> {
  if (!stream.isOpen) return 'closed';
  const head = streamableHead(text);
  if (!head.startsWith(stream.streamedText)) return 'diverged';
  const delta = head.slice(stream.streamedText.length);
  if (delta === '') return 'written';
  try {
    await place.client.chat.appendStream({ channel: place.channel, ts: stream.ts, markdown_text: delta });
  } catch (error) {
    return endedBySlack(stream, error);
  }
  stream.streamedText = head;
  return 'written';
}

/** Adds task cards (tool steps) to an open stream, where its text has got to. */
export async function appendChunksToNativeStream({
  place,
  stream,
  chunks,
}: {
  place: ReplyPlace;
  stream: NativeStream;
  chunks: readonly TaskChunk[];
}): Promise<StreamWriteResult> {
  if (!stream.isOpen) return 'closed';
  try {
    await place.client.chat.appendStream({ channel: place.channel, ts: stream.ts, chunks: [...chunks] });
  } catch (error) {
    return endedBySlack(stream, error);
  }
  return 'written';
}

/**
 * Ends the stream with the rest of `text` (and any last task chunks) and the buttons under it. On `diverged` or `closed` the
 * stream is ended (or was) without them, and the caller rewrites the message.
 */
export async function stopNativeStream({
  place,
  stream,
  text,
  actions,
  chunks = [],
}: {
  place: ReplyPlace;
  stream: NativeStream;
  text: string;
  actions: readonly Action[];
  chunks?: readonly TaskChunk[];
}): Promise<StreamWriteResult> {
  if (!stream.isOpen) return 'closed';
  const final = finalForm(text);
  const continues = final.startsWith(stream.streamedText);
  const rest = continues ? final.slice(stream.streamedText.length) : '';
  const actionsBlock = continues ? renderActionsBlock(actions) : undefined;
  try {
    await place.client.chat.stopStream({
      channel: place.channel,
      ts: stream.ts,
      ...(rest === '' ? {} : { markdown_text: rest }),
      ...(chunks.length > 0 ? { chunks: [...chunks] } : {}),
      ...(actionsBlock ? { blocks: [actionsBlock] } : {}),
    });
  } catch (error) {
    return endedBySlack(stream, error);
  }
  stream.isOpen = false;
  if (!continues) return 'diverged';
  stream.streamedText = final;
  return 'written';
}

// Slack ends a stream on its own after a while without writes; the message then stays as it was.
function endedBySlack(stream: NativeStream, error: unknown): StreamWriteResult {
  if (slackErrorCodeOf(error) !== 'message_not_in_streaming_state') throw error;
  stream.isOpen = false;
  return 'closed';
}
