import { randomUUID } from 'node:crypto';
import type { Action } from '../../src/delivery/card.ts';
import type { RequestPriority } from '../../src/delivery/request-scheduler.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { classifySlackFailure } from './classify-failure.ts';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.ts';
import {
  appendToNativeStream,
  type NativeStream,
  startNativeStream,
  stopNativeStream,
  streamableHead,
} from './native-stream.ts';
import { postPrivateActions } from './private-actions.ts';
import { renderFallbackText, renderReplyBlocks } from './render-blocks.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { editIntervals, slackLimits } from './slack-limits.ts';
import { mayStreamNatively, rememberStreamRefusal } from './stream-refusals.ts';
import { showThinkingStatus } from './thread-status.ts';
import { uploadFiles } from './upload-files.ts';

/** One message of a reply, with what it should show and how it is written. */
interface ReplyMessage {
  readonly ts: string;
  /** Set while (and after) the message is a native stream; undefined for a `markdown` block message. */
  readonly stream: NativeStream | undefined;
  /** The full Markdown the message should show. */
  text: string;
  /** The buttons shown under the message itself. */
  shownActions: readonly Action[];
  /**
   * The buttons a native stream could not carry (Stop): once Slack has ended the stream and the
   * message is rewritten with chat.update, they go under it.
   */
  readonly streamActions: readonly Action[];
  /** When Slack last accepted a write of the whole message (a post or a `chat.update`). */
  writtenAtMs: number;
  /** The final text is in but not yet sent: it waits for the buttons, to go out in the same call. */
  hasPendingText: boolean;
  /** Calls for one message run one after another: a timer may end a stream while an edit is due. */
  queue: Promise<void>;
  timers: ReturnType<typeof setTimeout>[];
}

/**
 * How long the final text of a reply's newest message waits for its buttons before it goes out
 * alone. Delivery sets the buttons right after the final text, so one call carries both: a Tier 3
 * `chat.update` is the scarcest call a reply makes.
 */
const finalTextGraceMs = 1_500;

/**
 * A reply in a Slack channel, DM or thread, as a Surface. In a thread it streams with Slack's native
 * streaming where the workspace has it; elsewhere, or once Slack refuses it, each message is one
 * `markdown` block that `chat.update` rewrites within the workspace's Tier 3 budget. Either way
 * Slack renders the model's Markdown itself and the last write leaves the exact text.
 */
export function createReplySurface({
  place,
  context,
  onChannelRefused,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  /** Called when Slack refuses a post because the bot is not in the channel. */
  onChannelRefused?: (error: unknown) => void;
}): Surface {
  const messages: ReplyMessage[] = [];
  const writerId = randomUUID();
  const canStreamNatively = () => place.threadTs !== undefined && mayStreamNatively(context.features, place);
  const recordOf = (message: PostedMessage): ReplyMessage => {
    const record = messages.find((candidate) => candidate.ts === message.id);
    if (record === undefined) throw new Error(`not a message of this reply: ${message.id}`);
    return record;
  };
  const inOrder = (record: ReplyMessage, task: () => Promise<void>): Promise<void> => {
    const run = record.queue.then(task);
    record.queue = run.catch(() => undefined);
    return run;
  };
  const later = (record: ReplyMessage, delayMs: number, task: () => Promise<void>) => {
    const timer = setTimeout(() => {
      inOrder(record, task).catch((error: unknown) =>
        context.logger.error({ err: error, ts: record.ts }, 'slack reply: a delayed call failed'),
      );
    }, delayMs);
    timer.unref();
    record.timers.push(timer);
  };

  const rewrite = async (record: ReplyMessage, actions: readonly Action[], priority: RequestPriority) => {
    await context.budget.run({
      teamId: place.teamId,
      method: 'chat.update',
      priority,
      staleSinceMs: record.writtenAtMs,
      writerId,
      call: () =>
        place.client.chat.update({
          channel: place.channel,
          ts: record.ts,
          text: renderFallbackText(record.text),
          blocks: renderReplyBlocks(record.text, actions),
        }),
    });
    record.shownActions = actions;
    record.writtenAtMs = Date.now();
    record.hasPendingText = false;
  };
  // Delivery may have planned an edit on the native interval before Slack refused native streaming;
  // a message rewritten by chat.update still keeps its Tier 3 interval.
  const rewriteInTurn = async (
    record: ReplyMessage,
    actions: readonly Action[],
    priority: RequestPriority,
  ) => {
    const waitMs = record.writtenAtMs + editIntervals.updateMs - Date.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    await rewrite(record, actions, priority);
  };
  // Ends a native stream with the rest of the text and the buttons; a message whose text no longer
  // continues what was streamed, or whose stream Slack already ended, is rewritten whole.
  const endStream = async (record: ReplyMessage, actions: readonly Action[]) => {
    if (!record.stream?.isOpen) return;
    for (const timer of record.timers.splice(0)) clearTimeout(timer);
    const stream = record.stream;
    const result = await context.budget.run({
      teamId: place.teamId,
      method: 'chat.stopStream',
      priority: 'final-edit',
      staleSinceMs: record.writtenAtMs,
      writerId,
      call: () => stopNativeStream({ place, stream, text: record.text, actions }),
    });
    if (result !== 'written') return rewrite(record, actions, 'final-edit');
    record.shownActions = actions;
    record.hasPendingText = false;
  };

  const startStream = async (text: string, actions: readonly Action[]): Promise<ReplyMessage | undefined> => {
    const { threadTs, recipientUserId } = place;
    if (threadTs === undefined || recipientUserId === undefined || !canStreamNatively()) return undefined;
    // A reply that opens with what a stream must hold back (a table, say) could not start cleanly.
    if (streamableHead(text) === '') return undefined;
    let started: { result: NativeStream } | undefined;
    try {
      // Tier 2: a reply that finds the budget spent streams with chat.update rather than wait.
      started = await context.budget.runIfFree({
        teamId: place.teamId,
        method: 'chat.startStream',
        call: () => startNativeStream({ place: { ...place, threadTs, recipientUserId }, text }),
      });
    } catch (error) {
      // Whatever the refusal, the reply goes on with chat.postMessage + chat.update; it is
      // remembered as widely as Slack's error code means, so it costs one refused call, not one a reply.
      const errorCode = slackErrorCodeOf(error);
      const scope = rememberStreamRefusal({ features: context.features, place, errorCode });
      const details = {
        teamId: place.teamId,
        channel: place.channel,
        error: errorCode ?? String(error),
        scope,
      };
      if (scope === 'this-reply')
        context.logger.warn(details, 'slack: chat.startStream failed; using chat.update');
      else
        context.logger.info(details, 'slack: chat.startStream refused; using chat.update here from now on');
      return undefined;
    }
    if (started === undefined) {
      context.logger.debug(
        { teamId: place.teamId },
        'slack: chat.startStream budget spent; using chat.update',
      );
      return undefined;
    }
    const stream = started.result;
    const record = newRecord({ ts: stream.ts, stream, text, shownActions: [], streamActions: actions });
    // A streaming message cannot carry buttons, so Stop reaches the person privately, and only when
    // the reply takes long enough to want stopping.
    if (actions.length > 0) {
      later(record, context.stopButtonDelayMs, async () => {
        if (!record.stream?.isOpen) return;
        // A courtesy: when Slack refuses it (the person left the channel, a limit), the reply goes on.
        await postPrivateActions(place, actions).catch((error: unknown) => {
          context.logger.info({ err: error }, 'slack: could not offer a private Stop button');
        });
      });
    }
    return record;
  };

  const post = async (text: string, actions: readonly Action[]): Promise<PostedMessage> => {
    context.budget.noteWriter({ teamId: place.teamId, writerId });
    let record = await startStream(text, actions);
    if (record === undefined) {
      const response = await place.client.chat
        .postMessage({
          channel: place.channel,
          ...(place.threadTs === undefined ? {} : { thread_ts: place.threadTs }),
          text: renderFallbackText(text),
          blocks: renderReplyBlocks(text, actions),
        })
        .catch((error: unknown) => {
          if (slackErrorCodeOf(error) === 'not_in_channel') onChannelRefused?.(error);
          throw error;
        });
      if (typeof response.ts !== 'string') throw new Error('chat.postMessage answered without a ts');
      record = newRecord({
        ts: response.ts,
        stream: undefined,
        text,
        shownActions: actions,
        streamActions: [],
      });
    }
    // Delivery rolled over to this message. An earlier stream ends with its final edit; when that
    // edit was not needed (the message already showed its final text), it ends after a while.
    for (const previous of messages) {
      if (previous.stream?.isOpen) {
        later(previous, editIntervals.nativeStreamMs * 2, () => endStream(previous, previous.shownActions));
      }
    }
    messages.push(record);
    return { id: record.ts };
  };

  // The reply's last text is out: it no longer shares the workspace's budget.
  const forgetWriter = () => context.budget.forgetWriter({ teamId: place.teamId, writerId });
  const sendPendingText = async (record: ReplyMessage) => {
    if (!record.hasPendingText) return;
    if (record.stream?.isOpen) await endStream(record, record.shownActions);
    else await rewriteInTurn(record, record.shownActions, 'final-edit');
    forgetWriter();
  };

  const edit = (record: ReplyMessage, text: string, isFinal: boolean) =>
    inOrder(record, async () => {
      record.text = text;
      if (isFinal && record === messages.at(-1)) {
        record.hasPendingText = true;
        later(record, finalTextGraceMs, () => sendPendingText(record));
        return;
      }
      const { stream } = record;
      if (stream?.isOpen) {
        // A message the reply rolled over from: its stream ends with the rest of its text.
        if (isFinal) return endStream(record, record.shownActions);
        const result = await context.budget.run({
          teamId: place.teamId,
          method: 'chat.appendStream',
          priority: 'edit',
          staleSinceMs: record.writtenAtMs,
          writerId,
          call: () => appendToNativeStream({ place, stream, text }),
        });
        if (result === 'written') {
          record.writtenAtMs = Date.now();
          return;
        }
        if (result === 'diverged') return endStream(record, []);
        // Slack ended the stream while the model paused: chat.update writes the rest, with Stop.
        if (record === messages.at(-1)) record.shownActions = record.streamActions;
      }
      await rewriteInTurn(record, record.shownActions, isFinal ? 'final-edit' : 'edit');
    });

  return {
    address: {
      platform: 'slack',
      teamId: place.teamId,
      channel: place.channel,
      ...(place.threadTs === undefined ? {} : { threadTs: place.threadTs }),
    },
    classifyFailure: classifySlackFailure,
    // Read live: the interval changes when the workspace turns out to lack native streaming, and
    // wrappers of this surface keep a reference to this object rather than copies of its values.
    limits: {
      maxMessageLength: slackLimits.replyMessageLength,
      // Replies writing at once in a workspace share its budget: each edits less often, so that
      // their final texts are not held up behind everyone's in-between edits.
      get minEditIntervalMs() {
        const isNative = canStreamNatively();
        return context.budget.fairIntervalMs({
          teamId: place.teamId,
          method: isNative ? 'chat.appendStream' : 'chat.update',
          minimumMs: isNative ? editIntervals.nativeStreamMs : editIntervals.updateMs,
        });
      },
    },
    post: (text, options) => post(text, options?.actions ?? []),
    edit: (message, text, options) => edit(recordOf(message), text, options?.isFinal === true),
    setActions(message, actions) {
      const record = recordOf(message);
      return inOrder(record, async () => {
        if (record === messages.at(-1)) forgetWriter();
        for (const timer of record.timers.splice(0)) clearTimeout(timer);
        if (record.stream?.isOpen) await endStream(record, actions);
        else if (record.hasPendingText) await rewriteInTurn(record, actions, 'final-edit');
        else if (!sameActions(record.shownActions, actions)) await rewrite(record, actions, 'final-edit');
      });
    },
    async upload(files: readonly OutgoingFile[], text?: string) {
      const ts = await uploadFiles({
        place,
        files,
        logger: context.logger,
        ...(text ? { comment: markdownToMrkdwn(text) } : {}),
      });
      return { id: ts ?? `upload-${Date.now()}` };
    },
    async showTyping() {
      await showThinkingStatus(place, context);
    },
    // What parley is doing before it answers (web search): Slack shows it as the thread status.
    async showStatus(text) {
      await showThinkingStatus(place, context, text);
    },
  };
}

function newRecord(
  fields: Pick<ReplyMessage, 'ts' | 'stream' | 'text' | 'shownActions' | 'streamActions'>,
): ReplyMessage {
  return { ...fields, writtenAtMs: Date.now(), hasPendingText: false, queue: Promise.resolve(), timers: [] };
}

function sameActions(left: readonly Action[], right: readonly Action[]): boolean {
  return left.length === right.length && left.every((action, index) => action.id === right[index]?.id);
}
