import { randomBytes } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { AccessVerdict } from '../src/access/access-gate.ts';
import type { PlaceSettings } from '../src/administration/place-settings.ts';
import { type ReplyEnding, type ReplyOutcome, storeUnavailableMessage } from '../src/conversation/engine.ts';
import {
  type DocumentAttachment,
  type ImageAttachment,
  type IncomingTurn,
  placeOfConversation,
} from '../src/conversation/turn.ts';
import type { Action } from '../src/delivery/card.ts';
import { createStreamingWriter } from '../src/delivery/streaming-writer.ts';
import type { Surface } from '../src/delivery/surface.ts';
import type { ToolCall } from '../src/gateway/chat-types.ts';
import type { StoredImageRef } from '../src/images/image-store.ts';
import { bytesOfDataUri, detectImageType } from '../src/images/image-type.ts';
import type { AskApproval } from '../src/tools/tool-loop.ts';
import { recordTurnEnding, traceTurn } from '../src/tracing/turn-spans.ts';
import { type ChatActionPayload, encodeActionId } from './action-store.ts';
import { answeredQuestionText, approvalQuestionOf } from './approval-question.ts';
import type { CommandServices } from './define-command.ts';

/**
 * Who asks and where: all the access gate needs, known from a message before anything it points at
 * is read; and the place's settings when the door already read them (a platform's reply mode), so a
 * turn reads them once and the gate, the engine and the spend guard share that reading.
 */
export type TurnFacts = Pick<IncomingTurn, 'actor' | 'conversationKey'> & {
  readonly placeSettings?: PlaceSettings;
};

/**
 * A turn read only once the gate has let its asker in: resolving the names a message mentions,
 * or anything else a platform must ask for, is not done for someone refused.
 */
export interface TurnToRead {
  readonly facts: TurnFacts;
  read(): Promise<IncomingTurn>;
}

/**
 * A chat reply with its buttons: Stop under the newest message while it streams, then Regenerate
 * (and Continue when the token limit cut the reply) under the last one, sent with its final text.
 * Mentions, /chat, Regenerate and Continue all reply through here, so every chat reply behaves the
 * same on every platform. The turn is one trace: its span is the parent of everything below.
 */
export function replyWithActions(
  options: Omit<Parameters<typeof answerTurn>[0], 'turnSpan'>,
): Promise<ReplyOutcome> {
  const facts = 'read' in options.turn ? options.turn.facts : options.turn;
  return traceTurn({ conversationKey: facts.conversationKey }, (turnSpan) =>
    answerTurn({ ...options, turnSpan }),
  );
}

async function answerTurn({
  turnSpan,
  services,
  turn: given,
  surface,
  replacesReplyCreatedAt,
  beforeReply,
  isAnswerOwed = false,
  signal: callerSignal,
  verdict: askedVerdict,
  approvedCall,
}: {
  /** The turn's span, told how the turn ended. */
  turnSpan: Span;
  services: CommandServices;
  /**
   * The turn, or its facts and how to read the rest: the gate answers on the facts, and a refused
   * person's message is never read (its mentions resolved, its files or links fetched).
   */
  turn: IncomingTurn | TurnToRead;
  surface: Surface;
  replacesReplyCreatedAt?: string;
  /**
   * The platform waits for an answer (a slash command's "thinking…", a pressed button): a refusal
   * is always said, privately, instead of once an hour.
   */
  isAnswerOwed?: boolean;
  /**
   * What to show once the person may be answered (a typing indicator, Slack's "is thinking…"), so a
   * refused person leaves no trace where others see it.
   */
  beforeReply?: () => Promise<unknown>;
  /** Stops the reply too (Ctrl+C in the terminal, shutdown), besides its own Stop button. */
  signal?: AbortSignal;
  /**
   * The access gate's answer for this turn's actor and conversation key, when the caller already
   * asked (before opening a thread): not asked twice, since a refusal's notice is given once an hour.
   */
  verdict?: AccessVerdict;
  /** An acting tool call its asker approved: the reply runs it first (actions/tool-approval.ts). */
  approvedCall?: ToolCall;
}): Promise<ReplyOutcome> {
  const facts: TurnFacts = 'read' in given ? given.facts : given;
  let verdict: AccessVerdict;
  let placeSettings: PlaceSettings;
  try {
    // The turn's one reading of the place's settings (issue 39), unless the door made it already.
    placeSettings =
      facts.placeSettings ?? (await services.places.settingsAt(placeOfConversation(facts.conversationKey)));
    verdict =
      askedVerdict ??
      (await services.access.authorize({
        actor: facts.actor,
        conversationKey: facts.conversationKey,
        capability: { kind: 'command', name: 'chat' },
        settings: placeSettings,
      }));
  } catch (error) {
    // Who may ask is kept in the store: one that does not answer gets the person a line, not silence.
    services.logger.error({ err: error }, 'conversation store unavailable');
    await createStreamingWriter({ surface })
      .fail({ reason: storeUnavailableMessage })
      .catch((writeError: unknown) => services.logger.warn({ err: writeError }, 'could not say so either'));
    recordTurnEnding(turnSpan, { status: 'failed', error });
    return refusedOutcome(services);
  }
  if (!verdict.isAllowed) {
    recordTurnEnding(turnSpan, { status: 'refused' });
    await tellRefused({ services, surface, text: isAnswerOwed ? verdict.text : verdict.notice });
    return refusedOutcome(services);
  }
  const turn = 'read' in given ? await given.read() : given;
  await beforeReply?.().catch((error: unknown) => {
    services.logger.debug({ err: error }, 'could not show that a reply is coming');
  });
  const replyId = randomBytes(9).toString('base64url');
  const stopSignal = services.activeReplies.start(replyId, {
    askerId: turn.actor.id,
    conversationKey: turn.conversationKey,
  });
  const signal = callerSignal ? AbortSignal.any([stopSignal, callerSignal]) : stopSignal;
  const stopAction: Action = {
    id: encodeActionId({ verb: 'chat.stop', token: replyId }),
    label: 'Stop',
    style: 'danger',
  };
  let outcome: ReplyOutcome;
  try {
    outcome = await services.engine.reply({
      turn,
      surface,
      signal,
      // A thread of its own is still the same place: its settings are those read at the door.
      ...(isSamePlace(turn.conversationKey, facts.conversationKey) ? { placeSettings } : {}),
      ...(surface.setActions ? { askApproval: approvalAskerFor({ services, turn, surface }) } : {}),
      ...(replacesReplyCreatedAt ? { replacesReplyCreatedAt } : {}),
      ...(approvedCall ? { approvedCall } : {}),
      ...(surface.postPrivately
        ? { tellAskerPrivately: (text: string) => surface.postPrivately?.(text) ?? Promise.resolve() }
        : {}),
      // Stop gives way to Regenerate (and Continue) in the reply's last write.
      ...(surface.setActions
        ? {
            actions: {
              whileStreaming: [stopAction],
              atEnd: (ending: ReplyEnding) =>
                followUpActionsOf({
                  services,
                  turn,
                  ending,
                  canRate: surface.hasFeedbackButtons === true,
                }),
            },
          }
        : {}),
    });
  } finally {
    services.activeReplies.finish(replyId);
  }
  recordTurnEnding(turnSpan, { status: outcome.status, error: outcome.error });
  return outcome;
}

/**
 * Puts an acting tool's call before the person who asked for the reply, with Approve and Deny under
 * a message of its own that shows every argument (approval-question.ts). The reply does not wait:
 * an Approve runs the call in a reply of its own (actions/tool-approval.ts), the message then says
 * how it was answered.
 */
function approvalAskerFor({
  services,
  turn,
  surface,
}: {
  services: CommandServices;
  turn: IncomingTurn;
  surface: Surface;
}): AskApproval {
  return async ({ tool, call }) => {
    const question = approvalQuestionOf({
      tool,
      call,
      askerName: turn.actor.name,
      maxMessageLength: surface.limits.maxMessageLength,
    });
    if (question.file && !surface.upload) {
      return { isAsked: false, detail: 'its arguments are too long to show here in full' };
    }
    try {
      await services.toolApprovals.ask({
        askerId: turn.actor.id,
        conversationKey: turn.conversationKey,
        call,
        timeoutMs: services.toolApprovalTimeoutMs,
        async show(token) {
          // The whole arguments first, so the question that points to the file comes after it.
          if (question.file)
            await surface.upload?.([question.file], 'The whole arguments of the call below:');
          // Beside the reply: a Slack stream the reply writes in stays open for the rest of the answer.
          const postQuestion = surface.postAside?.bind(surface) ?? surface.post.bind(surface);
          const message = await postQuestion(question.text, {
            actions: [
              { id: encodeActionId({ verb: 'tool.approve', token }), label: 'Approve', style: 'primary' },
              { id: encodeActionId({ verb: 'tool.deny', token }), label: 'Deny', style: 'danger' },
            ],
          });
          return {
            ended: (ending) => surface.edit(message, answeredQuestionText(question, ending), { actions: [] }),
          };
        },
      });
      return { isAsked: true };
    } catch (error) {
      services.logger.warn({ err: error, tool: tool.name }, 'could not ask for approval');
      return { isAsked: false, detail: 'the question could not be shown' };
    }
  };
}

/**
 * No reply where everyone sees it: a private notice (once an hour for messages; every time where the
 * platform waits for an answer), or where the platform has no private message, the place's own
 * failure line for an owed answer, so a deferred "thinking…" never stays forever.
 */
async function tellRefused({
  services,
  surface,
  text,
}: {
  services: CommandServices;
  surface: Surface;
  text: string | undefined;
}): Promise<void> {
  if (text === undefined) return;
  try {
    if (surface.postPrivately) await surface.postPrivately(text);
    else await createStreamingWriter({ surface }).fail({ reason: text });
  } catch (error) {
    services.logger.warn({ err: error }, 'could not give a refused person their notice');
  }
}

// A refused request reached neither the engine nor the gateway.
function refusedOutcome(services: CommandServices): ReplyOutcome {
  return {
    status: 'failed',
    delivered: { text: '', messages: [], editCount: 0, isComplete: false },
    model: services.models.chat,
    finishReason: undefined,
    usage: undefined,
    error: undefined,
  };
}

/** Regenerate is offered after every reply, a failed one included: there it is "try again". */
async function followUpActionsOf({
  services,
  turn,
  ending,
  canRate,
}: {
  services: CommandServices;
  turn: IncomingTurn;
  ending: ReplyEnding;
  /** The surface shows 👍/👎 natively: a reply that was written and recorded may be rated. */
  canRate: boolean;
}): Promise<Action[]> {
  const token = await services.actionStore.save({
    kind: 'chat',
    conversationKey: turn.conversationKey,
    author: { id: turn.author.id, name: turn.author.name },
    text: turn.text,
    images: await keepImages({ services, dataUris: ending.imageDataUris }),
    documents: ending.documents.map(({ name, documentHash }) => ({ name, documentHash })),
    ...(ending.recordedAt ? { replyCreatedAt: ending.recordedAt } : {}),
  });
  const actions: Action[] = [
    { id: encodeActionId({ verb: 'chat.regenerate', token }), label: 'Regenerate', style: 'secondary' },
  ];
  if (ending.finishReason === 'length') {
    actions.push({
      id: encodeActionId({ verb: 'chat.continue', token }),
      label: 'Continue',
      style: 'primary',
    });
  }
  if (canRate && ending.recordedAt !== undefined && ending.status !== 'failed') {
    actions.push(
      { id: encodeActionId({ verb: 'chat.feedback', token, index: 1 }), label: '👍', feedback: 'positive' },
      { id: encodeActionId({ verb: 'chat.feedback', token, index: 0 }), label: '👎', feedback: 'negative' },
    );
  }
  return actions;
}

/**
 * The turn's images as the model got them, kept once each (by hash) in the image store: the payload
 * holds only references, so three Regenerate payloads of one screenshot do not hold it three times.
 */
async function keepImages({
  services,
  dataUris,
}: {
  services: CommandServices;
  dataUris: readonly string[];
}): Promise<StoredImageRef[]> {
  const refs: StoredImageRef[] = [];
  for (const uri of dataUris) {
    const bytes = bytesOfDataUri(uri);
    const mimeType = detectImageType(bytes);
    if (mimeType) refs.push(await services.actionStore.images.keep({ bytes, mimeType }));
  }
  return refs;
}

/**
 * The documents of a Regenerate payload, read from the document store by hash: never downloaded or
 * parsed again (a document no longer kept gets a note from the reader).
 */
export function attachmentsFromKeptDocuments(payload: ChatActionPayload): DocumentAttachment[] {
  return payload.documents.map(({ name, documentHash }) => ({
    name,
    keptHash: documentHash,
    load: async () => {
      throw new Error('a kept document is read from the store, never loaded again');
    },
  }));
}

/**
 * The images of a Regenerate payload as attachments again, or undefined when one is no longer kept
 * (expired, or evicted by the store's cap): regenerating without it would answer another question.
 */
export async function attachmentsFromKeptImages({
  payload,
  services,
}: {
  payload: ChatActionPayload;
  services: CommandServices;
}): Promise<ImageAttachment[] | undefined> {
  const legacy = (payload.imageDataUris ?? []).map((uri) => bytesOfDataUri(uri));
  const kept = await Promise.all(payload.images.map((ref) => services.actionStore.images.load(ref)));
  if (kept.some((image) => image === undefined)) return undefined;
  return [...legacy, ...kept.map((image) => image?.bytes ?? new Uint8Array())].map((bytes, index) => ({
    name: `image-${index + 1}`,
    load: async () => bytes,
  }));
}

/** Whether two conversations are one place (a thread and its channel are), whose settings are one. */
function isSamePlace(first: string, second: string): boolean {
  const [one, other] = [placeOfConversation(first), placeOfConversation(second)];
  return (
    one.platform === other.platform && one.workspace === other.workspace && one.channel === other.channel
  );
}
