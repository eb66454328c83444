import type { ContenderName } from './contenders.ts';
import type { ConversationObservation } from './reply-observations.ts';
import type { ScenarioObservations } from './run-scenario.ts';
import { type LatencySummary, summarize } from './statistics.ts';

/** Discord's budgets, as issue 6 states them. */
export const discordBudgets = {
  /** About 5 edits per 5 s per channel: one edit a second, sustained. */
  editsPerChannelPerSecond: 5 / 5,
  globalRequestsPerSecond: 50,
} as const;

/** The figures of one contender under one load, as the table and results.json give them. */
export interface ScenarioFigures {
  contender: ContenderName;
  conversationCount: number;
  roundCount: number;
  /** Fresh processes run under the same load, their figures pooled. */
  repetitionCount: number;
  /** All replies: N × rounds × repetitions. */
  replyCount: number;
  isTimedOut: boolean;
  /** Mention → the gateway receives the contender's request: event delivery, history, context. */
  mentionToGatewayRequestMs: LatencySummary;
  /** The load as the fake gateway delivered it: request → first content chunk (about 400 ms) … */
  gatewayTimeToFirstTokenMs: LatencySummary;
  /** … and first → last content chunk (about 6 s at 50 tokens/s). */
  gatewayStreamDurationMs: LatencySummary;
  /** Cores used by other processes and stolen by the hypervisor, the most of any repetition. */
  otherLoad: { otherProcessesCores: number; stealCores: number };
  /** How late the bench's own event loop (the fakes) ran; see ScenarioObservations. */
  harnessLoopDelayMs: { p99: number; max: number };
  /** First visible model text minus the gateway's first content chunk. */
  addedLatencyMs: LatencySummary;
  /** The mention's sending → first visible model text. */
  eventToFirstTextMs: LatencySummary;
  /** What nobody could beat: a reply's rank in the global queue ÷ 50/s (p50 and p99 ranks). */
  physicalBoundMs: LatencySummary;
  /** eventToFirstText p50 ÷ physicalBound p50. */
  eventToFirstTextOverBound: number | undefined;
  /**
   * Share of replies whose first text appeared only after the gateway had finished: their first post
   * could have carried the whole reply, and the final edit would not have been needed.
   */
  firstTextAfterStreamEnd: number;
  /** Gateway's `[DONE]` → the exact final text visible. */
  finalLagMs: LatencySummary;
  /** Accepted edits per reply, buttons included. */
  editsPerReply: number;
  /** Edits while the reply grew, over what 5 edits / 5 s allowed in that time; 1 = all of it. */
  editBudgetUsed: number | undefined;
  /** Every REST request after the first mention (429s included), per reply. */
  restCallsPerReply: number;
  restCallsByRoute: Record<string, number>;
  rateLimits: { total: number; global: number; route: number; forced: number };
  exactReplies: number;
  cpuSeconds: number;
  tokensStreamed: number;
  cpuSecondsPerThousandTokens: number | undefined;
  /** The most CPU used in any one second of the load, in cores (1 = a saturated main thread). */
  busiestSecondCpuCores: number;
  idleRssMiB: number;
  peakRssMiB: number;
  /** (peak − idle) ÷ conversations at once, averaged over repetitions. */
  rssPerConversationKiB: number;
  /** Load start → last final text, averaged over repetitions. */
  loadDurationMs: number | undefined;
}

const mebibyte = 1024 * 1024;

/**
 * The figures of one contender under one load, pooled over its repetitions (fresh processes under
 * the same load): latencies over every reply of every repetition, costs summed or averaged.
 */
export function figuresOf(repetitions: readonly ScenarioObservations[]): ScenarioFigures {
  const first = repetitions[0];
  if (first === undefined) throw new Error('figuresOf needs at least one repetition');
  const { conversationCount } = first;
  const conversations = repetitions.flatMap((repetition) => repetition.conversations);
  const restCalls = repetitions.flatMap((repetition) => repetition.restCalls);
  const differences = (
    pick: (conversation: ConversationObservation) => [number | undefined, number | undefined],
  ) =>
    conversations.flatMap((conversation) => {
      const [later, earlier] = pick(conversation);
      return later === undefined || earlier === undefined ? [] : [later - earlier];
    });

  // The k-th person to see text cannot, at 50 requests a second, see it before k/50 s.
  const ranks = Array.from({ length: conversationCount }, (_, index) => index + 1);
  const physicalBoundMs = summarize(
    ranks.map((rank) => (rank / discordBudgets.globalRequestsPerSecond) * 1000),
  );
  const eventToFirstTextMs = summarize(
    differences((conversation) => [conversation.firstVisibleAtMs, conversation.sentAtMs]),
  );

  let streamingSeconds = 0;
  let editsWhileStreaming = 0;
  for (const conversation of conversations) {
    if (conversation.firstVisibleAtMs === undefined || conversation.finalVisibleAtMs === undefined) continue;
    streamingSeconds += (conversation.finalVisibleAtMs - conversation.firstVisibleAtMs) / 1000;
    editsWhileStreaming += conversation.editsWhileStreaming;
  }
  const restCallsByRoute: Record<string, number> = {};
  const rateLimits = { total: 0, global: 0, route: 0, forced: 0, banned: 0 };
  for (const call of restCalls) {
    restCallsByRoute[call.route] = (restCallsByRoute[call.route] ?? 0) + 1;
    if (call.rateLimit !== null) {
      rateLimits.total += 1;
      rateLimits[call.rateLimit] += 1;
    }
  }
  const replyCount = conversations.length;
  const cpuSeconds = sumOf(repetitions, (repetition) => repetition.cpuSeconds);
  const tokensStreamed = sumOf(repetitions, (repetition) => repetition.tokensStreamed);
  const loadDurations = repetitions.flatMap((repetition) => {
    const finalTimes = repetition.conversations.flatMap((conversation) =>
      conversation.finalVisibleAtMs === undefined ? [] : [conversation.finalVisibleAtMs],
    );
    return finalTimes.length === 0 ? [] : [Math.max(...finalTimes) - repetition.loadStartedAtMs];
  });
  return {
    contender: first.contender,
    conversationCount,
    roundCount: first.roundCount,
    repetitionCount: repetitions.length,
    replyCount,
    isTimedOut: repetitions.some((repetition) => repetition.isTimedOut),
    mentionToGatewayRequestMs: summarize(
      differences((conversation) => [conversation.gateway?.receivedAtMs, conversation.sentAtMs]),
    ),
    gatewayTimeToFirstTokenMs: summarize(
      differences((conversation) => [
        conversation.gateway?.firstContentChunkAtMs,
        conversation.gateway?.receivedAtMs,
      ]),
    ),
    gatewayStreamDurationMs: summarize(
      differences((conversation) => [
        conversation.gateway?.lastContentChunkAtMs,
        conversation.gateway?.firstContentChunkAtMs,
      ]),
    ),
    otherLoad: {
      otherProcessesCores: Math.max(
        ...repetitions.map((repetition) => repetition.otherLoad.otherProcessesCores),
      ),
      stealCores: Math.max(...repetitions.map((repetition) => repetition.otherLoad.stealCores)),
    },
    harnessLoopDelayMs: {
      p99: Math.max(...repetitions.map((repetition) => repetition.harnessLoopDelayMs.p99)),
      max: Math.max(...repetitions.map((repetition) => repetition.harnessLoopDelayMs.max)),
    },
    addedLatencyMs: summarize(
      differences((conversation) => [
        conversation.firstVisibleAtMs,
        conversation.gateway?.firstContentChunkAtMs,
      ]),
    ),
    eventToFirstTextMs,
    physicalBoundMs,
    eventToFirstTextOverBound:
      eventToFirstTextMs.p50 === undefined || physicalBoundMs.p50 === undefined
        ? undefined
        : eventToFirstTextMs.p50 / physicalBoundMs.p50,
    firstTextAfterStreamEnd:
      conversations.filter(
        (conversation) =>
          conversation.firstVisibleAtMs !== undefined &&
          conversation.gateway !== undefined &&
          conversation.firstVisibleAtMs > conversation.gateway.endedAtMs,
      ).length / replyCount,
    finalLagMs: summarize(
      differences((conversation) => [conversation.finalVisibleAtMs, conversation.gateway?.endedAtMs]),
    ),
    editsPerReply: sumOf(conversations, (conversation) => conversation.editCount) / replyCount,
    editBudgetUsed:
      streamingSeconds === 0
        ? undefined
        : editsWhileStreaming / (streamingSeconds * discordBudgets.editsPerChannelPerSecond),
    restCallsPerReply: restCalls.length / replyCount,
    restCallsByRoute,
    rateLimits,
    exactReplies: conversations.filter((conversation) => conversation.isExact).length,
    cpuSeconds,
    tokensStreamed,
    cpuSecondsPerThousandTokens: tokensStreamed === 0 ? undefined : cpuSeconds / (tokensStreamed / 1000),
    busiestSecondCpuCores: Math.max(...repetitions.map((repetition) => repetition.busiestSecondCpuCores)),
    idleRssMiB: meanOf(repetitions, (repetition) => repetition.idleRssBytes) / mebibyte,
    peakRssMiB: meanOf(repetitions, (repetition) => repetition.peakRssBytes) / mebibyte,
    rssPerConversationKiB:
      meanOf(repetitions, (repetition) => repetition.peakRssBytes - repetition.idleRssBytes) /
      1024 /
      conversationCount,
    loadDurationMs: loadDurations.length === 0 ? undefined : meanOf(loadDurations, (duration) => duration),
  };
}

function sumOf<Item>(items: readonly Item[], value: (item: Item) => number): number {
  return items.reduce((sum, item) => sum + value(item), 0);
}

function meanOf<Item>(items: readonly Item[], value: (item: Item) => number): number {
  return items.length === 0 ? 0 : sumOf(items, value) / items.length;
}
