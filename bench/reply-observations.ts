import type { FakeMessage, RestCall } from '../test/fakes/discord/index.ts';
import type { StreamTimings } from '../test/fakes/gateway/index.ts';

/** What happened to one conversation, read back from the two fakes after the load. */
export interface ConversationObservation {
  index: number;
  channelId: string;
  /** When the person's mention was sent (epoch ms, sub-ms precision, like every time here). */
  sentAtMs: number;
  /** The reply text the gateway was told to stream for this conversation. */
  expectedText: string;
  /** The fake gateway's timings of the stream that answered it; missing when none completed. */
  gateway: Omit<StreamTimings, 'request'> | undefined;
  /** The first time model text (not a placeholder) was visible in the channel. */
  firstVisibleAtMs: number | undefined;
  /** When the channel started showing the exact final text, for good. */
  finalVisibleAtMs: number | undefined;
  /** The bot's messages, joined, show exactly what the gateway streamed. */
  isExact: boolean;
  /** Accepted edits of the bot's messages in this channel (text or buttons). */
  editCount: number;
  /** Accepted edits from the first visible text to the final text: the edits that made it grow. */
  editsWhileStreaming: number;
  /** Every REST request on this channel's routes, refused ones included. */
  restCallCount: number;
  rateLimitedCount: number;
}

/** How many leading characters a revision must share with the reply to count as model text. */
const modelTextPrefixLength = 4;

/**
 * Reads one conversation's outcome from the fake Discord's messages and request log. A revision
 * counts as visible model text when it starts like the reply; a "…" placeholder or a "thinking"
 * note does not.
 */
export function observeConversation({
  index,
  channelId,
  sentAtMs,
  expectedText,
  gateway,
  botMessages,
  channelCalls,
}: {
  index: number;
  channelId: string;
  sentAtMs: number;
  expectedText: string;
  gateway: Omit<StreamTimings, 'request'> | undefined;
  botMessages: readonly FakeMessage[];
  channelCalls: readonly RestCall[];
}): ConversationObservation {
  const firstVisibleAtMs = firstModelTextAtMs(botMessages, expectedText);
  const finalText = botMessages.map((message) => message.content).join('');
  const isExact = finalText === expectedText && gateway?.text === expectedText;
  const finalVisibleAtMs = isExact ? finalTextAtMs(botMessages) : undefined;
  const acceptedEdits = channelCalls.filter((call) => call.route === 'message-edit' && call.status === 200);
  const editsWhileStreaming =
    firstVisibleAtMs === undefined || finalVisibleAtMs === undefined
      ? 0
      : acceptedEdits.filter((call) => call.atMs >= firstVisibleAtMs && call.atMs <= finalVisibleAtMs).length;
  return {
    index,
    channelId,
    sentAtMs,
    expectedText,
    gateway,
    firstVisibleAtMs,
    finalVisibleAtMs,
    isExact,
    editCount: acceptedEdits.length,
    editsWhileStreaming,
    restCallCount: channelCalls.length,
    rateLimitedCount: channelCalls.filter((call) => call.status === 429).length,
  };
}

function firstModelTextAtMs(messages: readonly FakeMessage[], expectedText: string): number | undefined {
  let earliestMs: number | undefined;
  for (const message of messages) {
    const revision = message.revisions.find((candidate) => startsLikeReply(candidate.content, expectedText));
    if (revision !== undefined && (earliestMs === undefined || revision.atMs < earliestMs)) {
      earliestMs = revision.atMs;
    }
  }
  return earliestMs;
}

function startsLikeReply(content: string, expectedText: string): boolean {
  const prefixLength = Math.min(modelTextPrefixLength, content.length);
  return prefixLength > 0 && expectedText.startsWith(content.slice(0, prefixLength));
}

/** When the last message to settle took its final content (later edits that kept it, e.g. buttons, aside). */
function finalTextAtMs(messages: readonly FakeMessage[]): number | undefined {
  let latestMs: number | undefined;
  for (const message of messages) {
    const revisions = message.revisions;
    let settledIndex = revisions.length - 1;
    while (settledIndex > 0 && revisions[settledIndex - 1]?.content === message.content) settledIndex -= 1;
    const settledAtMs = revisions[settledIndex]?.atMs;
    if (settledAtMs !== undefined && (latestMs === undefined || settledAtMs > latestMs))
      latestMs = settledAtMs;
  }
  return latestMs;
}
