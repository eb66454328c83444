import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { type FakeDiscord, type RestCall, startFakeDiscord } from '../test/fakes/discord/index.ts';
import { type StreamTimings, startFakeGateway } from '../test/fakes/gateway/index.ts';
import { startChild } from './child-process.ts';
import { benchGatewayApiKey, type ContenderName, launchOf } from './contenders.ts';
import {
  conversationIndexIn,
  loadProfile,
  mentionTextOf,
  replyTextOf,
  streamShapeOf,
} from './load-profile.ts';
import { readCpuSeconds, readMachineCpuSeconds, readMemory, resetPeakRss } from './process-stats.ts';
import { type ConversationObservation, observeConversation } from './reply-observations.ts';

/** Everything one contender did under one load, before any figure is computed. */
export interface ScenarioObservations {
  contender: ContenderName;
  /** Conversations at once. */
  conversationCount: number;
  roundCount: number;
  /** Every conversation of every round. */
  conversations: ConversationObservation[];
  /** Every REST request from the first mention until the bot fell quiet. */
  restCalls: RestCall[];
  loadStartedAtMs: number;
  isTimedOut: boolean;
  cpuSeconds: number;
  idleRssBytes: number;
  peakRssBytes: number;
  tokensStreamed: number;
  /**
   * The most CPU the contender used in any one second of the load, in cores: near 1 means its main
   * thread was saturated and waited on itself, whatever the rate limits allowed.
   */
  busiestSecondCpuCores: number;
  /**
   * What else used the machine's CPU during the load, in cores on average: other processes (a test
   * run in another terminal skews every figure) and the hypervisor's steal.
   */
  otherLoad: OtherLoad;
  /**
   * How late the bench's own event loop (which runs both fakes) ran during the load, in ms. Large
   * values would mean the fakes, not the contender, set the pace.
   */
  harnessLoopDelayMs: { p99: number; max: number };
  /** Where the child's own output went, and its CPU profile when asked for. */
  logDirectory: string;
}

/** How long a contender may take to log in and register. */
const readyTimeoutMs = 60_000;
/** Lets start-up work (GC, the fake's global window) settle before the idle baseline is taken. */
const settleMs = 1500;
/** The bot is done when no REST request came for this long after the last final text. */
const quietMs = 1500;
const quietTimeoutMs = 30_000;
const pollIntervalMs = 250;

/**
 * Runs one contender against fresh fakes: start it as a child, wait until it is ready, send N
 * mentions at once (each in its own channel), wait until every reply shows its exact final text and
 * the bot falls quiet, then read CPU and memory from /proc and stop it.
 */
export async function runScenario({
  contender,
  conversationCount,
  roundCount = 1,
  cpuProfileDirectory,
  nodeArguments = [],
  tokensPerChunk = 1,
  otlpEndpoint,
}: {
  contender: ContenderName;
  conversationCount: number;
  /**
   * How many times to repeat the load, each time in fresh channels once the previous round fell
   * quiet. One conversation gives one latency sample; rounds give N=1 a p99 worth the name.
   */
  roundCount?: number;
  /** When set, the child runs with `--cpu-prof` and writes its profile here. */
  cpuProfileDirectory?: string | undefined;
  /** More arguments for the child's Node, e.g. `--import` of a tracing hook while investigating. */
  nodeArguments?: readonly string[];
  /** Tokens per SSE event: more makes the same token rate cost the contenders fewer events to parse. */
  tokensPerChunk?: number;
  /** parley traced, exporting over OTLP/HTTP here (`--otlp`). */
  otlpEndpoint?: string | undefined;
}): Promise<ScenarioObservations> {
  const workDirectory = mkdtempSync(join(tmpdir(), `parley-bench-${contender}-${conversationCount}-`));
  const timingsByIndex = new Map<number, StreamTimings>();
  const streamShape = streamShapeOf(tokensPerChunk);
  const gateway = await startFakeGateway({
    apiKey: benchGatewayApiKey,
    defaultBehaviour: {
      chunkSize: streamShape.charactersPerChunk,
      delayBetweenChunksMs: streamShape.intervalMs,
      latencyMs: streamShape.latencyMs,
      // Timer lateness in this busy process would otherwise stretch 6 s streams to 8-10 s at N=500.
      isRateSteady: true,
    },
    replyTextFor: (request) => {
      const index = conversationIndexIn(lastUserTextOf(request.body));
      return index === undefined ? undefined : replyTextOf(index);
    },
    onStreamTimings: (timings) => {
      const index = conversationIndexIn(lastUserTextOf(timings.request.body));
      if (index !== undefined) timingsByIndex.set(index, timings);
    },
  });
  // Recorded bodies would otherwise keep every prompt in memory for nothing.
  const gatewayRequestsCleanup = setInterval(() => {
    gateway.requests.length = 0;
  }, 1000);
  const discord = await startFakeDiscord({
    textChannelCount: Math.max(2, conversationCount * roundCount),
    isCheckingSpecification: false,
  });
  const launch = launchOf({ contender, discord, gateway, workDirectory, otlpEndpoint });
  const child = startChild({
    args: [
      ...launch.nodeFlags,
      ...nodeArguments,
      ...(cpuProfileDirectory === undefined
        ? []
        : [
            '--cpu-prof',
            `--cpu-prof-dir=${cpuProfileDirectory}`,
            `--cpu-prof-name=${contender}${otlpEndpoint === undefined ? '' : '-traced'}-${conversationCount}.cpuprofile`,
          ]),
      launch.script,
    ],
    environment: launch.environment,
    workingDirectory: workDirectory,
    logPath: join(workDirectory, 'child-output.log'),
  });
  let sampler: NodeJS.Timeout | undefined;
  try {
    await launch.waitUntilReady({ child, discord, timeoutMs: readyTimeoutMs });
    await delay(settleMs);
    const idleRssBytes = readMemory(child.pid).rssBytes;
    const cpuAtStartSeconds = readCpuSeconds(child.pid);
    const machineAtStart = readMachineCpuSeconds();
    const harnessAtStart = process.cpuUsage();
    const loadStartedAtPerformanceMs = performance.now();
    const canResetPeak = resetPeakRss(child.pid);
    let sampledPeakRssBytes = idleRssBytes;
    const cpuSamples: CpuSample[] = [{ atMs: performance.now(), cpuSeconds: cpuAtStartSeconds }];
    sampler = setInterval(() => {
      try {
        sampledPeakRssBytes = Math.max(sampledPeakRssBytes, readMemory(child.pid).rssBytes);
        cpuSamples.push({ atMs: performance.now(), cpuSeconds: readCpuSeconds(child.pid) });
      } catch {
        // A child that died mid-run has no /proc entry any more; the run fails on its own below.
      }
    }, 100);

    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const channelIds = discord.textChannelIds.slice(0, conversationCount * roundCount);
    const firstCallIndex = discord.requests.length;
    const loadStartedAtMs = performance.timeOrigin + performance.now();
    const sentAtMs: number[] = [];
    let isTimedOut = false;
    for (let round = 0; round < roundCount && !isTimedOut; round += 1) {
      const roundChannelIds = channelIds.slice(round * conversationCount, (round + 1) * conversationCount);
      for (const [offset, channelId] of roundChannelIds.entries()) {
        sentAtMs.push(performance.timeOrigin + performance.now());
        const index = round * conversationCount + offset;
        discord.sendUserMessage({ channelId, content: mentionTextOf(index), mentionsBot: true });
      }
      const timeoutMs = 60_000 + conversationCount * 200;
      const waited = await waitForFinalTexts({
        discord,
        channelIds: roundChannelIds,
        firstIndex: round * conversationCount,
        timeoutMs,
      });
      isTimedOut = waited.isTimedOut;
      await waitForQuiet(discord);
    }

    const cpuSeconds = readCpuSeconds(child.pid) - cpuAtStartSeconds;
    const otherLoad = otherLoadSince({
      machineAtStart,
      harnessAtStart,
      childCpuSeconds: cpuSeconds,
      elapsedSeconds: (performance.now() - loadStartedAtPerformanceMs) / 1000,
    });
    loopDelay.disable();
    clearInterval(sampler);
    const memory = readMemory(child.pid);
    const peakRssBytes = Math.max(sampledPeakRssBytes, canResetPeak ? memory.peakRssBytes : 0);
    await child.stop(15_000);

    const restCalls = discord.requests.slice(firstCallIndex);
    const callsByChannel = groupByChannel(restCalls);
    const conversations = channelIds.slice(0, sentAtMs.length).map((channelId, index) =>
      observeConversation({
        index,
        channelId,
        sentAtMs: sentAtMs[index] ?? loadStartedAtMs,
        expectedText: replyTextOf(index),
        gateway: timingsByIndex.get(index),
        botMessages: discord.messages(channelId).filter((message) => message.author.id === discord.bot.id),
        channelCalls: callsByChannel.get(channelId) ?? [],
      }),
    );
    return {
      contender,
      conversationCount,
      roundCount,
      conversations,
      restCalls,
      loadStartedAtMs,
      isTimedOut,
      cpuSeconds,
      idleRssBytes,
      peakRssBytes,
      tokensStreamed: [...timingsByIndex.values()].reduce(
        (sum, timings) => sum + timings.text.length / loadProfile.charactersPerToken,
        0,
      ),
      busiestSecondCpuCores: busiestSecondOf(cpuSamples),
      otherLoad,
      harnessLoopDelayMs: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
      logDirectory: workDirectory,
    };
  } finally {
    clearInterval(sampler);
    clearInterval(gatewayRequestsCleanup);
    if (!child.hasExited) await child.stop(5_000);
    await Promise.all([discord.close(), gateway.close()]);
  }
}

/** Polls (rather than reacting to every change, which would cost the fakes' process O(N) each time). */
async function waitForFinalTexts({
  discord,
  channelIds,
  firstIndex,
  timeoutMs,
}: {
  discord: FakeDiscord;
  channelIds: readonly string[];
  /** The conversation index of the first channel. */
  firstIndex: number;
  timeoutMs: number;
}): Promise<{ isTimedOut: boolean }> {
  const waiting = new Set(
    channelIds.map((channelId, offset) => ({ channelId, expectedText: replyTextOf(firstIndex + offset) })),
  );
  const deadlineMs = Date.now() + timeoutMs;
  while (waiting.size > 0 && Date.now() < deadlineMs) {
    await delay(pollIntervalMs);
    for (const entry of waiting) {
      const shown = discord
        .messages(entry.channelId)
        .filter((message) => message.author.id === discord.bot.id)
        .map((message) => message.content)
        .join('');
      if (shown === entry.expectedText) waiting.delete(entry);
    }
  }
  return { isTimedOut: waiting.size > 0 };
}

/** Waits until the fake Discord has seen no request for `quietMs`: buttons and late edits are counted too. */
async function waitForQuiet(discord: FakeDiscord): Promise<void> {
  const deadlineMs = Date.now() + quietTimeoutMs;
  while (Date.now() < deadlineMs) {
    const lastCallAtMs = discord.requests.at(-1)?.atMs ?? 0;
    const quietForMs = performance.timeOrigin + performance.now() - lastCallAtMs;
    if (quietForMs >= quietMs) return;
    await delay(Math.max(50, quietMs - quietForMs));
  }
}

/** Average cores used during the load by processes other than the contender and the bench, and stolen. */
export interface OtherLoad {
  otherProcessesCores: number;
  stealCores: number;
}

function otherLoadSince({
  machineAtStart,
  harnessAtStart,
  childCpuSeconds,
  elapsedSeconds,
}: {
  machineAtStart: ReturnType<typeof readMachineCpuSeconds>;
  harnessAtStart: NodeJS.CpuUsage;
  childCpuSeconds: number;
  elapsedSeconds: number;
}): OtherLoad {
  const machine = readMachineCpuSeconds();
  const harness = process.cpuUsage(harnessAtStart);
  const harnessSeconds = (harness.user + harness.system) / 1e6;
  const otherSeconds = machine.busySeconds - machineAtStart.busySeconds - childCpuSeconds - harnessSeconds;
  return {
    otherProcessesCores: Math.max(0, otherSeconds / elapsedSeconds),
    stealCores: (machine.stealSeconds - machineAtStart.stealSeconds) / elapsedSeconds,
  };
}

interface CpuSample {
  atMs: number;
  cpuSeconds: number;
}

function busiestSecondOf(samples: readonly CpuSample[]): number {
  let busiest = 0;
  let startIndex = 0;
  for (const [endIndex, end] of samples.entries()) {
    while ((samples[startIndex + 1]?.atMs ?? end.atMs) <= end.atMs - 1000) startIndex += 1;
    const start = samples[startIndex];
    if (start === undefined || end.atMs - start.atMs < 900 || endIndex === startIndex) continue;
    busiest = Math.max(busiest, (end.cpuSeconds - start.cpuSeconds) / ((end.atMs - start.atMs) / 1000));
  }
  return busiest;
}

function groupByChannel(calls: readonly RestCall[]): Map<string, RestCall[]> {
  const byChannel = new Map<string, RestCall[]>();
  for (const call of calls) {
    const channelId = call.params.channelId;
    if (channelId === undefined) continue;
    const list = byChannel.get(channelId) ?? [];
    list.push(call);
    byChannel.set(channelId, list);
  }
  return byChannel;
}

/** The text of the last user message of a chat request body, whatever shape its content has. */
function lastUserTextOf(body: unknown): string {
  if (typeof body !== 'object' || body === null || !('messages' in body) || !Array.isArray(body.messages)) {
    return '';
  }
  const lastUser = (body.messages as unknown[]).findLast(
    (message) =>
      typeof message === 'object' && message !== null && 'role' in message && message.role === 'user',
  );
  return lastUser === undefined ? '' : JSON.stringify(lastUser);
}

/** Removes a scenario's temporary directory unless it is kept for its logs and profile. */
export function removeWorkDirectory(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
}
