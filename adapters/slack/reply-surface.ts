import { randomUUID } from 'node:crypto';
import type { Action } from '../../src/delivery/card.ts';
import type { CallPriority } from '../../src/delivery/outbound-queue.ts';
import type { OutgoingFile, PostedMessage, Surface, SurfaceCall } from '../../src/delivery/surface.ts';
import type { ToolStep } from '../../src/gateway/chat-types.ts';
import { agentSessionStatusOf, setAgentSessionStatus } from './agent-sessions.ts';
import { classifySlackFailure } from './classify-failure.ts';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.ts';
import {
  appendChunksToNativeStream,
  appendToNativeStream,
  type NativeStream,
  startNativeStream,
  stopNativeStream,
  streamableHead,
  type TaskChunk,
} from './native-stream.ts';
import { postPrivateActions } from './private-actions.ts';
import { renderFallbackText, renderReplyBlocks } from './render-blocks.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { editIntervals, methodBudgets, slackLimits } from './slack-limits.ts';
import { methodGroup } from './slack-outbound.ts';
import { mayStreamNatively, rememberStreamRefusal } from './stream-refusals.ts';
import { planUpdateOf, taskUpdateOf, toolStepDisplayMode } from './task-cards.ts';
import { showThinkingStatus } from './thread-status.ts';
import { uploadFiles } from './upload-files.ts';

/** The replies being written in a workspace, posted or not (a group of the outbound queue). */
const replyingGroup = 'replies';

/**
 * When a reply holds its first post (see `holdFirstPost`): not while each reply in the workspace
 * can have a chat.update within `quietShareMs`, and never longer than `longestMs`. Measured with
 * `npm run bench:slack` (20 replies of 6 s at once): a 5 s hold posted them partly written and
 * they still waited up to 20 s for their last edit; holding until they end shows each whole as soon
 * as the model is done, and at 100 and 300 replies finishes them all instead of three in four.
 * Past `longestMs` a long reply shows what it has and takes its turn for edits.
 */
const firstPostHold = { quietShareMs: 3_000, longestMs: 15_000 } as const;

/**
 * A held reply shows what it has this long after its first text was ready, as a message of its own
 * (`Surface.earlyPartDelayMs`): chat.postMessage counts per channel, not per workspace, so 20 or 300
 * replies at once each show text within a second, and each sends the rest as one more message when
 * it ends, with no chat.update at all. Long enough to carry a few words rather than one (10
 * tokens at 50 a second), short enough to show text within a second of the mention: at 300 ms the
 * N=20 bench showed it after 973 ms on a loaded machine (the model's first token alone takes 0.4 s).
 */
const earlyPartDelayMs = 200;

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
  /** When Slack last accepted a write of the message. */
  writtenAtMs: number;
  /** The method the outbound queue has just granted for this message's call (see `spend`). */
  grantedMethod: string | undefined;
  /** Calls for one message run one after another: a timer may end a stream while an edit is due. */
  queue: Promise<void>;
  timers: ReturnType<typeof setTimeout>[];
}

/**
 * A reply in a Slack channel, DM or thread, as a Surface. In a thread it streams with Slack's native
 * streaming (`stream`) where the workspace has it and the budget for starting streams allows;
 * elsewhere, or beyond that budget, or once Slack refuses it, each message is one `markdown` block
 * that `chat.update` rewrites. Every call waits its turn in the bot's outbound queue, and the final
 * write carries the reply's buttons. Either way Slack renders the model's Markdown itself and the
 * last write leaves the exact text.
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
}): Surface & { readonly hasPosted: () => boolean } {
  const { outbound } = context;
  const messages: ReplyMessage[] = [];
  // Messages posted beside the reply (`postAside`): editable, but never one of its messages, so
  // they neither end its stream nor become the message its text goes on in.
  const asides: ReplyMessage[] = [];
  const writerId = randomUUID();
  const canStreamNatively = () => place.threadTs !== undefined && mayStreamNatively(context.features, place);
  const target = (method: string) => ({ teamId: place.teamId, method, channel: place.channel });
  const recordOf = (message: PostedMessage): ReplyMessage => {
    const record = [...messages, ...asides].find((candidate) => candidate.ts === message.id);
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
  // The call the queue granted for this message goes at once; any other waits its own turn.
  const spend = <Result>(
    record: ReplyMessage,
    method: string,
    priority: CallPriority,
    call: () => Promise<Result>,
  ): Promise<Result> => {
    if (record.grantedMethod === method) {
      record.grantedMethod = undefined;
      return call();
    }
    return outbound.schedule({
      priority,
      target: target(method),
      staleSinceMs: record.writtenAtMs,
      run: call,
    });
  };
  const noteWriter = (method: string) => outbound.noteWriter(methodGroup(place.teamId, method), writerId);
  // The reply's last text is out: it no longer shares the workspace's budget.
  const forgetWriter = () => {
    for (const method of ['chat.update', 'chat.appendStream', replyingGroup]) {
      outbound.forgetWriter(methodGroup(place.teamId, method), writerId);
    }
  };

  const rewrite = async (record: ReplyMessage, actions: readonly Action[], priority: CallPriority) => {
    await spend(record, 'chat.update', priority, () =>
      place.client.chat.update({
        channel: place.channel,
        ts: record.ts,
        text: renderFallbackText(record.text),
        blocks: renderReplyBlocks(record.text, actions),
      }),
    );
    record.shownActions = actions;
    record.writtenAtMs = Date.now();
  };
  // Ends a native stream with the rest of the text and the buttons; a message whose text no longer
  // continues what was streamed, or whose stream Slack already ended, is rewritten whole.
  const endStream = async (record: ReplyMessage, actions: readonly Action[]) => {
    if (!record.stream?.isOpen) return;
    for (const timer of record.timers.splice(0)) clearTimeout(timer);
    const stream = record.stream;
    const chunks =
      record.ts === steps.planTs && steps.ids.size > 1
        ? [planUpdateOf({ steps: steps.ids.size, tools: steps.toolIds.size, isOver: true })]
        : [];
    const result = await spend(record, 'chat.stopStream', 'final-write', () =>
      stopNativeStream({ place, stream, text: record.text, actions, chunks }),
    );
    if (result !== 'written') return rewrite(record, actions, 'final-write');
    record.shownActions = actions;
    record.writtenAtMs = Date.now();
  };
  // Delivery rolled over to a new message. An earlier stream ends with its final edit; when that
  // edit was not needed (the message already showed its final text), it ends after a while.
  const addMessage = (record: ReplyMessage) => {
    for (const previous of messages) {
      if (previous.stream?.isOpen) {
        later(previous, editIntervals.nativeStreamMs * 2, () => endStream(previous, previous.shownActions));
      }
    }
    messages.push(record);
    return { id: record.ts };
  };

  const stream = async (
    text: string,
    actions: readonly Action[],
    isWhole: boolean,
    isFinal: boolean,
  ): Promise<PostedMessage | 'not-available'> => {
    // A stream started for the reply's tool steps (see showToolStep) is its first message.
    await stepQueue;
    if (stepStream !== undefined) return continueStepStream(text, actions, isWhole);
    const starting = startReplyStream(text, actions, isWhole, isFinal);
    // A step shown meanwhile waits for this start, to go into its stream rather than open another.
    replyStreamStarting = starting.then(
      () => undefined,
      () => undefined,
    );
    return starting;
  };
  // The start of the stream the reply's text goes in (a stream not begun by its tool steps).
  let replyStreamStarting: Promise<void> = Promise.resolve();
  const startReplyStream = async (
    text: string,
    actions: readonly Action[],
    isWhole: boolean,
    isFinal: boolean,
  ): Promise<PostedMessage | 'not-available'> => {
    const { threadTs, recipientUserId } = place;
    if (threadTs === undefined || recipientUserId === undefined || !canStreamNatively())
      return 'not-available';
    // A whole reply (or an early part, see earlyPartDelayMs) is one chat.postMessage; a stream would
    // spend a Tier 2 start and stop on it.
    if (isWhole || isFinal) return 'not-available';
    // A reply that opens with what a stream must hold back (a table, say) could not start cleanly.
    if (streamableHead(text) === '') return 'not-available';
    let started: { result: NativeStream } | undefined;
    try {
      // Tier 2: a reply that finds the budget spent posts and updates rather than wait.
      started = await outbound.tryNow({
        target: target('chat.startStream'),
        run: () => startNativeStream({ place: { ...place, threadTs, recipientUserId }, text }),
      });
    } catch (error) {
      noteStreamRefusal(error);
      return 'not-available';
    }
    if (started === undefined) {
      context.logger.debug({ teamId: place.teamId }, 'slack: chat.startStream budget spent; posting instead');
      return 'not-available';
    }
    const record = newRecord({
      ts: started.result.ts,
      stream: started.result,
      text,
      shownActions: [],
      streamActions: actions,
    });
    noteWriter('chat.appendStream');
    if (actions.length > 0) offerPrivateStop(record, actions);
    return addMessage(record);
  };
  // Tool steps as task cards. A stream started for them before the reply has text becomes its first
  // message once delivery posts; until then it is not in `messages`, so a message posted meanwhile
  // (an acting tool's Approve / Deny question) neither ends it nor takes its place.
  const steps = {
    ids: new Set<string>(),
    toolIds: new Set<string>(),
    planTs: undefined as string | undefined,
  };
  let stepStream: NativeStream | undefined;
  // Steps arrive without waiting for Slack: each is shown after the one before.
  let stepQueue: Promise<unknown> = Promise.resolve();
  const showStep = async (step: ToolStep): Promise<'shown' | 'not-shown'> => {
    await replyStreamStarting;
    const isNew = !steps.ids.has(step.id);
    steps.ids.add(step.id);
    if (step.kind !== 'work') steps.toolIds.add(step.id);
    const last = messages.at(-1);
    const streamTs = stepStream?.ts ?? last?.stream?.ts;
    // Multi-step work: the plan's title says how far it has got.
    const chunks: TaskChunk[] = [
      ...(isNew && steps.ids.size > 1 && streamTs !== undefined && streamTs === steps.planTs
        ? [planUpdateOf({ steps: steps.ids.size, tools: steps.toolIds.size, isOver: false })]
        : []),
      taskUpdateOf(step),
    ];
    if (stepStream !== undefined) {
      const pending = stepStream;
      const result = await outbound.schedule({
        priority: 'edit',
        target: target('chat.appendStream'),
        run: () => appendChunksToNativeStream({ place, stream: pending, chunks }),
      });
      return result === 'written' ? 'shown' : 'not-shown';
    }
    // The reply already writes: its cards go where its text has got to, if it streams natively.
    if (last !== undefined) {
      const open = last.stream;
      if (!open?.isOpen) return 'not-shown';
      let result = 'closed';
      await inOrder(last, async () => {
        result = await spend(last, 'chat.appendStream', 'edit', () =>
          appendChunksToNativeStream({ place, stream: open, chunks }),
        );
      });
      return result === 'written' ? 'shown' : 'not-shown';
    }
    return startStepStream(chunks);
  };
  // An agent session parley holds here is suspended while an acting tool waits for the asker's yes
  // (their Approve/Deny), and processing again once the call runs (a denied call leaves it to the
  // reply's end, which sets it active): parley's reading of the
  // statuses, which "Agent sessions" (docs.slack.dev/ai/agent-sessions) lists without saying when.
  const followInAgentSession = (step: ToolStep) => {
    const current = agentSessionStatusOf(context, place);
    if (step.status === 'waiting' && current === 'processing') {
      void setAgentSessionStatus({ place, context, status: 'suspended' });
    } else if (step.status === 'running' && current === 'suspended') {
      void setAgentSessionStatus({ place, context, status: 'processing' });
    }
  };
  const startStepStream = async (chunks: readonly TaskChunk[]): Promise<'shown' | 'not-shown'> => {
    const { threadTs, recipientUserId } = place;
    if (threadTs === undefined || recipientUserId === undefined || !canStreamNatively()) return 'not-shown';
    let started: { result: NativeStream } | undefined;
    try {
      started = await outbound.tryNow({
        target: target('chat.startStream'),
        run: () =>
          startNativeStream({
            place: { ...place, threadTs, recipientUserId },
            text: '',
            chunks,
            taskDisplayMode: toolStepDisplayMode,
          }),
      });
    } catch (error) {
      noteStreamRefusal(error);
      return 'not-shown';
    }
    if (started === undefined) return 'not-shown';
    stepStream = started.result;
    steps.planTs = started.result.ts;
    noteWriter('chat.appendStream');
    return 'shown';
  };
  // Delivery posts the reply's first text: into the stream its steps started, as any stream's text.
  const continueStepStream = async (
    text: string,
    actions: readonly Action[],
    isWhole: boolean,
  ): Promise<PostedMessage | 'not-available'> => {
    const started = stepStream;
    stepStream = undefined;
    if (started === undefined || !started.isOpen) return 'not-available';
    const record = newRecord({
      ts: started.ts,
      stream: started,
      text: '',
      shownActions: [],
      streamActions: actions,
    });
    if (!isWhole && actions.length > 0) offerPrivateStop(record, actions);
    const posted = addMessage(record);
    if (isWhole) await edit(record, text, true, actions);
    else {
      // The message exists whatever this first write does: later edits carry what it missed.
      await edit(record, text, false, undefined).catch((error: unknown) =>
        context.logger.warn({ err: error, ts: record.ts }, 'slack reply: the first text of a stream failed'),
      );
    }
    return posted;
  };
  // Whatever the refusal, the reply goes on with chat.postMessage + chat.update; it is remembered as
  // widely as Slack's error code means, so it costs one refused call, not one a reply.
  const noteStreamRefusal = (error: unknown) => {
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
    else context.logger.info(details, 'slack: chat.startStream refused; using chat.update here from now on');
  };
  // A streaming message cannot carry buttons, so Stop reaches the person privately, and only when
  // the reply takes long enough to want stopping. A courtesy: it never waits for budget, and when
  // Slack refuses it (the person left the channel, a limit) the reply goes on.
  const offerPrivateStop = (record: ReplyMessage, actions: readonly Action[]) => {
    later(record, context.stopButtonDelayMs, async () => {
      if (!record.stream?.isOpen) return;
      await outbound
        .tryNow({ target: target('chat.postEphemeral'), run: () => postPrivateActions(place, actions) })
        .catch((error: unknown) => {
          context.logger.info({ err: error }, 'slack: could not offer a private Stop button');
        });
    });
  };

  const post = async (
    text: string,
    actions: readonly Action[],
    isWhole: boolean,
    isFinal: boolean,
  ): Promise<PostedMessage> => {
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
    if (isWhole) forgetWriter();
    // An early part is never updated: the reply goes on in its next message, still counted as replying.
    else if (!isFinal) noteWriter('chat.update');
    return addMessage(
      newRecord({ ts: response.ts, stream: undefined, text, shownActions: actions, streamActions: [] }),
    );
  };

  // A stream, once stopped, takes no more text (chat.stopStream "Stops a streaming conversation";
  // chat.appendStream appends only to an existing one: docs.slack.dev/reference/methods/chat.stopStream,
  // …/chat.appendStream), so a question posted while the reply streams must not end its stream.
  const postAside = async (text: string, actions: readonly Action[]): Promise<PostedMessage> => {
    const response = await outbound.schedule({
      priority: 'first-post',
      target: target('chat.postMessage'),
      run: () =>
        place.client.chat.postMessage({
          channel: place.channel,
          ...(place.threadTs === undefined ? {} : { thread_ts: place.threadTs }),
          text: renderFallbackText(text),
          blocks: renderReplyBlocks(text, actions),
        }),
    });
    if (typeof response.ts !== 'string') throw new Error('chat.postMessage answered without a ts');
    asides.push(
      newRecord({ ts: response.ts, stream: undefined, text, shownActions: actions, streamActions: [] }),
    );
    return { id: response.ts };
  };

  const edit = (
    record: ReplyMessage,
    text: string,
    isFinal: boolean,
    actions: readonly Action[] | undefined,
  ) =>
    inOrder(record, async () => {
      record.text = text;
      const isLast = record === messages.at(-1);
      if (isFinal && isLast) forgetWriter();
      if (record.stream?.isOpen) {
        if (isFinal) return endStream(record, actions ?? record.shownActions);
        const stream = record.stream;
        const result = await spend(record, 'chat.appendStream', 'edit', () =>
          appendToNativeStream({ place, stream, text }),
        );
        if (result === 'written') {
          record.writtenAtMs = Date.now();
          return;
        }
        if (result === 'diverged') return endStream(record, actions ?? []);
        // Slack ended the stream while the model paused: chat.update writes the rest, with Stop.
        if (isLast) record.shownActions = record.streamActions;
      }
      await rewrite(record, actions ?? record.shownActions, isFinal ? 'final-write' : 'edit');
    });

  // The method a message's next call will use, so that it waits for that method's budget.
  const methodOf = (call: Extract<SurfaceCall, { kind: 'edit' }>): string => {
    const stream = recordOf(call.message).stream;
    if (!stream?.isOpen) return 'chat.update';
    return call.isFinal ? 'chat.stopStream' : 'chat.appendStream';
  };

  return {
    hasPosted: () => messages.length > 0,
    address: {
      platform: 'slack',
      teamId: place.teamId,
      channel: place.channel,
      ...(place.threadTs === undefined ? {} : { threadTs: place.threadTs }),
    },
    classifyFailure: classifySlackFailure,
    // Read live: the interval changes when the workspace turns out to lack native streaming, and
    // measuring wrappers of this surface keep a reference to this object rather than copies of its values.
    limits: {
      maxMessageLength: slackLimits.replyMessageLength,
      // Every call waits its method's bucket in the outbound queue: the final write (chat.stopStream
      // or chat.update) goes as soon as that allows, not at the in-between pace.
      finalEditIntervalMs: 0,
      // Replies writing at once in a workspace share its budget: each edits less often, so that
      // their final texts are not held up behind everyone's in-between edits.
      get minEditIntervalMs() {
        const last = messages.at(-1);
        const isNative = last === undefined ? canStreamNatively() : last.stream?.isOpen === true;
        const method = isNative ? 'chat.appendStream' : 'chat.update';
        return outbound.fairIntervalMs({
          group: methodGroup(place.teamId, method),
          callsPerMinute: methodBudgets[method]?.perMinute ?? 60,
          minimumMs: method === 'chat.appendStream' ? editIntervals.nativeStreamMs : editIntervals.updateMs,
        });
      },
    },
    // Many replies at once in a workspace share its chat.update budget, so each waits long for the
    // edit that finishes it: a reply then holds its first post a while, and a short one goes out
    // whole in one call that needs no edit at all. A longer one shows what it has after
    // `earlyPartDelayMs` (a native stream if a start is left, else a chat.postMessage of its own) and
    // the rest, held, in one more message. A reply counts from when it has text to show (one
    // refused, or waiting for its conversation's turn, writes nothing and is not counted).
    earlyPartDelayMs,
    holdFirstPost() {
      noteWriter(replyingGroup);
      const updateShareMs = outbound.fairIntervalMs({
        group: methodGroup(place.teamId, replyingGroup),
        callsPerMinute: methodBudgets['chat.update']?.perMinute ?? 60,
        minimumMs: 0,
      });
      return updateShareMs <= firstPostHold.quietShareMs
        ? 0
        : Math.min(updateShareMs, firstPostHold.longestMs);
    },
    enqueue(call, run) {
      if (call.kind === 'post') {
        return outbound.schedule({ priority: 'first-post', target: target('chat.postMessage'), run });
      }
      const record = recordOf(call.message);
      const method = methodOf(call);
      return outbound.schedule({
        priority: call.isFinal ? 'final-write' : 'edit',
        target: target(method),
        staleSinceMs: call.staleSinceMs,
        run: () => {
          record.grantedMethod = method;
          return run().finally(() => {
            if (record.grantedMethod === method) record.grantedMethod = undefined;
          });
        },
      });
    },
    stream: (text, options) =>
      stream(text, options?.actions ?? [], options?.isWhole === true, options?.isFinal === true),
    post: (text, options) =>
      post(text, options?.actions ?? [], options?.isWhole === true, options?.isFinal === true),
    postAside: (text, options) => postAside(text, options?.actions ?? []),
    edit: (message, text, options) =>
      edit(recordOf(message), text, options?.isFinal === true, options?.actions),
    setActions(message, actions) {
      const record = recordOf(message);
      return inOrder(record, async () => {
        for (const timer of record.timers.splice(0)) clearTimeout(timer);
        if (record.stream?.isOpen) await endStream(record, actions);
        else if (!sameActions(record.shownActions, actions)) await rewrite(record, actions, 'final-write');
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
    // Native streaming shows each tool step as a task card; without it, delivery's one status line.
    toolStepLines: 'latest',
    showToolStep(step) {
      followInAgentSession(step);
      const shown = stepQueue.then(() => showStep(step));
      stepQueue = shown.catch(() => undefined);
      return shown.catch((error: unknown) => {
        context.logger.info({ err: error }, 'slack: could not show a tool step as a task card');
        return 'not-shown' as const;
      });
    },
  };
}

function newRecord(
  fields: Pick<ReplyMessage, 'ts' | 'stream' | 'text' | 'shownActions' | 'streamActions'>,
): ReplyMessage {
  return {
    ...fields,
    writtenAtMs: Date.now(),
    grantedMethod: undefined,
    queue: Promise.resolve(),
    timers: [],
  };
}

function sameActions(left: readonly Action[], right: readonly Action[]): boolean {
  return left.length === right.length && left.every((action, index) => action.id === right[index]?.id);
}
