import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_URL_TEMPLATE,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledTracing, installTracing } from '../../src/tracing/install-tracing.ts';
import {
  ATTR_PARLEY_ACCESS_ALLOWED,
  ATTR_PARLEY_APPROVAL_ENDING,
  ATTR_PARLEY_REPLY_STATUS,
} from '../../src/tracing/span-attributes.ts';
import type { FakeUser } from '../fakes/discord/index.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { actingTool, buttonOf, testTool } from '../support/test-tools.ts';

/**
 * Issue 38: one trace per turn, on the real bot (discord.js against the fake Discord, the openai SDK
 * against the fake gateway), its spans caught by the SDK's in-memory exporter. Attribute names are
 * the semantic conventions' constants, never strings typed here.
 */
const exporter = new InMemorySpanExporter();
let tracing: InstalledTracing;
let under: DiscordUnderTest;
let mallory: FakeUser;
const secretWord = 'pelican-umbrella-41';
/** What the acting tool `test_write` was called with. */
const written: unknown[] = [];

beforeAll(async () => {
  tracing = installTracing({
    serviceName: 'parley-test',
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    isContentCaptured: false,
    secrets: [],
  });
  under = await startDiscordUnderTest((discord) => {
    mallory = discord.createUser({ username: 'mallory' });
    return {
      ACCESS_BLOCK_USER_IDS: mallory.id,
      CHAT_MODEL: 'tools-model',
      // Tracing configured, as in a run: the logger then writes span ids (the spans go to memory here).
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    };
  });
  under.app.toolbox.replace('test', [testTool({ name: 'test_lookup' }), actingTool('test_write', written)]);
}, 30_000);
afterAll(async () => {
  await under.close();
  await tracing.stop();
});
afterEach(() => {
  under.gateway.reset();
  exporter.reset();
});

const turnSpanName = `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} parley`;
const spans = () => exporter.getFinishedSpans();
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/**
 * Sends a mention and waits for its trace's root span (the Discord message) to end: the turn's last
 * write is done by then. `turn` is the reply's `invoke_agent parley` span.
 */
async function traceOfTurn(
  content: string,
  author?: FakeUser,
): Promise<{ root: ReadableSpan; turn: ReadableSpan; trace: ReadableSpan[] }> {
  under.discord.sendUserMessage({
    channelId: under.generalChannelId,
    content,
    mentionsBot: true,
    ...(author ? { author: author.id } : {}),
  });
  const root = await under.discord.waitFor(() => spans().find((span) => span.name === 'discord message'), {
    timeoutMs: 15_000,
  });
  const trace = spans().filter((span) => span.spanContext().traceId === root.spanContext().traceId);
  const turn = trace.find((span) => span.name === turnSpanName);
  if (turn === undefined) throw new Error('the trace has no turn span');
  return { root, turn, trace };
}

const childrenOf = (trace: readonly ReadableSpan[], parent: ReadableSpan) =>
  trace.filter((span) => parentOf(span) === parent.spanContext().spanId);
const chatSpans = (trace: readonly ReadableSpan[]) =>
  trace.filter((span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT);

describe('a trace per turn', () => {
  it('a streamed reply: the turn, its access decision, history, the chat request and the platform calls', async () => {
    under.gateway.enqueue({
      text: 'Tides turn twice a day, roughly every twelve hours.',
      chunkSize: 6,
      delayBetweenChunksMs: 40,
    });
    const { root, turn, trace } = await traceOfTurn('when do tides turn?');
    expect(parentOf(root)).toBeUndefined();
    // The message: the gate's answer on its facts, then the reply.
    expect(childrenOf(trace, root).map((span) => span.name)).toEqual(['authorize', turnSpanName]);
    expect(trace.find((span) => span.name === 'authorize')?.attributes[ATTR_PARLEY_ACCESS_ALLOWED]).toBe(
      true,
    );
    expect(turn.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe(GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    expect(turn.attributes[ATTR_PARLEY_REPLY_STATUS]).toBe('complete');
    expect(turn.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(childrenOf(trace, turn).map((span) => span.name)).toEqual(
      expect.arrayContaining(['conversation lock wait', 'history load', 'spend admit', 'chat tools-model']),
    );
    const [chat, ...otherChats] = chatSpans(trace);
    expect(otherChats).toEqual([]);
    expect(parentOf(chat as ReadableSpan)).toBe(turn.spanContext().spanId);
    expect(chat?.attributes).toMatchObject({
      [ATTR_GEN_AI_REQUEST_MODEL]: 'tools-model',
      [ATTR_GEN_AI_RESPONSE_MODEL]: 'tools-model',
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ['stop'],
    });
    expect(chat?.attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS]).toBeGreaterThan(0);
    expect(chat?.attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]).toBeGreaterThan(0);
    const firstChunkSeconds = chat?.attributes[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK];
    expect(firstChunkSeconds).toBeGreaterThan(0);
    // The first chunk came before the stream ended.
    const chatSeconds = (chat?.duration[0] ?? 0) + (chat?.duration[1] ?? 0) / 1e9;
    expect(firstChunkSeconds).toBeLessThan(chatSeconds);
    // The reply's writes to Discord: the post, then edits, each a span of the turn with its route.
    const routes = trace.map((span) => span.attributes[ATTR_URL_TEMPLATE]).filter(Boolean);
    expect(routes[0]).toBe('POST /channels/{channel.id}/messages');
    expect(routes).toContain('PATCH /channels/{channel.id}/messages/{message.id}');
    // The engine's log line of the reply leads to the turn's span.
    const finished = under
      .logOutput()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'reply finished');
    expect(finished).toMatchObject({
      trace_id: turn.spanContext().traceId,
      span_id: turn.spanContext().spanId,
    });
    // Nothing the person or the model wrote is in any span.
    expect(JSON.stringify(trace.map((span) => span.attributes))).not.toMatch(/tides|twelve hours/i);
  });

  it('a turn that waits for the one before it in the conversation shows the wait', async () => {
    under.gateway.enqueue({
      text: 'The first answer takes its time to arrive.',
      chunkSize: 6,
      delayBetweenChunksMs: 60,
    });
    under.gateway.enqueue({ text: 'The second one follows.' });
    for (const content of ['first question', 'second question']) {
      under.discord.sendUserMessage({ channelId: under.generalChannelId, content, mentionsBot: true });
    }
    const [firstTurn, secondTurn] = await under.discord.waitFor(
      () => {
        const turns = spans().filter((span) => span.name === turnSpanName);
        return turns.length === 2 ? turns : undefined;
      },
      { timeoutMs: 15_000 },
    );
    const waitOf = (turn: ReadableSpan | undefined) =>
      spans().find(
        (span) => span.name === 'conversation lock wait' && parentOf(span) === turn?.spanContext().spanId,
      );
    const nanos = ([seconds, nanoseconds]: readonly [number, number]) => seconds * 1e9 + nanoseconds;
    // The second turn's wait ends once the first turn's reply has ended.
    expect(nanos(waitOf(secondTurn)?.endTime ?? [0, 0])).toBeGreaterThanOrEqual(
      nanos(
        chatSpans(spans()).find((span) => parentOf(span) === firstTurn?.spanContext().spanId)?.endTime ?? [
          1e12, 0,
        ],
      ),
    );
  });

  it('a refused turn has its access decision and no gateway span', async () => {
    const { root, turn, trace } = await traceOfTurn('let me in', mallory);
    const authorize = childrenOf(trace, root).find((span) => span.name === 'authorize');
    expect(authorize?.attributes[ATTR_PARLEY_ACCESS_ALLOWED]).toBe(false);
    expect(turn.attributes[ATTR_PARLEY_REPLY_STATUS]).toBe('refused');
    expect(turn.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(trace.map((span) => span.name)).not.toContain('history load');
    expect(chatSpans(trace)).toEqual([]);
    expect(under.gateway.requests).toEqual([]);
  });

  it('a cut stream ends its chat span and the turn with error status', async () => {
    under.gateway.enqueue({
      text: 'This answer will break off in the middle of it.',
      chunkSize: 5,
      cutAfterChunks: 3,
    });
    const { turn, trace } = await traceOfTurn('tell me a long story');
    const [chat] = chatSpans(trace);
    expect(chat?.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat?.attributes[ATTR_ERROR_TYPE]).toEqual(expect.any(String));
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.attributes[ATTR_PARLEY_REPLY_STATUS]).toBe('cut');
  });

  it('a tool reply has an execute_tool span between its two chat requests', async () => {
    under.gateway.enqueue({ toolCalls: [{ name: 'test_lookup', arguments: { text: secretWord } }] });
    under.gateway.enqueue({ text: 'Looked it up.' });
    const { turn, trace } = await traceOfTurn('look it up');
    const tool = trace.find(
      (span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    );
    expect(tool?.name).toBe('execute_tool test_lookup');
    expect(tool?.attributes[ATTR_GEN_AI_TOOL_NAME]).toBe('test_lookup');
    expect(parentOf(tool as ReadableSpan)).toBe(turn.spanContext().spanId);
    const chats = chatSpans(trace);
    expect(chats.map((span) => span.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS])).toEqual([
      ['tool_calls'],
      ['stop'],
    ]);
    const startOf = (span: ReadableSpan | undefined) =>
      (span?.startTime[0] ?? 0) * 1e9 + (span?.startTime[1] ?? 0);
    expect(startOf(tool)).toBeGreaterThan(startOf(chats[0]));
    expect(startOf(chats[1])).toBeGreaterThan(startOf(tool));
    // Arguments and results are content: not in the spans.
    expect(JSON.stringify(trace.map((span) => span.attributes))).not.toContain(secretWord);
    expect(trace.some((span) => ATTR_GEN_AI_INPUT_MESSAGES in span.attributes)).toBe(false);
    expect(trace.some((span) => ATTR_GEN_AI_OUTPUT_MESSAGES in span.attributes)).toBe(false);
  });

  it('a tool reply with an approval: the wait is a span of the press, beside the reply that runs the call, linked to the turn that asked', async () => {
    under.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: secretWord } }] });
    under.gateway.enqueue({ text: 'It waits for your approval.' });
    under.gateway.enqueue({ text: 'Written.' });
    const asking = await traceOfTurn('write it down');
    // The asking reply ended without waiting: no execute_tool in its trace, and no wait either.
    expect(asking.trace.map((span) => span.name)).not.toContain('execute_tool test_write');
    expect(asking.trace.some((span) => span.name.startsWith('approval wait'))).toBe(false);
    const question = await under.discord.waitFor(
      () =>
        under
          .botMessages(under.generalChannelId)
          .find((message) => message.content.includes('wants to') && buttonOf(message, 'Approve') !== ''),
      { timeoutMs: 15_000 },
    );
    under.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Approve') });
    const press = await under.discord.waitFor(
      () => spans().find((span) => span.name === 'action tool.approve'),
      { timeoutMs: 15_000 },
    );
    expect(written).toEqual([{ text: secretWord }]);
    const pressTrace = spans().filter((span) => span.spanContext().traceId === press.spanContext().traceId);
    const wait = pressTrace.find((span) => span.name === 'approval wait test_write');
    const resumed = pressTrace.find((span) => span.name === turnSpanName);
    if (wait === undefined || resumed === undefined) throw new Error('the press has no wait or no reply');
    // The wait and the reply that runs the call are both the press's; the call runs in that reply.
    expect(parentOf(wait)).toBe(press.spanContext().spanId);
    expect(parentOf(resumed)).toBe(press.spanContext().spanId);
    expect(wait.attributes[ATTR_GEN_AI_TOOL_NAME]).toBe('test_write');
    expect(wait.attributes[ATTR_PARLEY_APPROVAL_ENDING]).toBe('pressed');
    const tool = pressTrace.find((span) => span.name === 'execute_tool test_write');
    expect(parentOf(tool as ReadableSpan)).toBe(resumed.spanContext().spanId);
    // It leads back to the turn that asked, and covers the time from the question to the press.
    expect(wait.links.map((link) => link.context.spanId)).toEqual([asking.turn.spanContext().spanId]);
    expect(wait.links[0]?.context.traceId).toBe(asking.turn.spanContext().traceId);
    const nanos = ([seconds, nanoseconds]: readonly [number, number]) => seconds * 1e9 + nanoseconds;
    expect(nanos(wait.startTime)).toBeLessThan(nanos(asking.turn.endTime));
    expect(nanos(wait.startTime)).toBeGreaterThan(nanos(asking.turn.startTime));
    expect(nanos(wait.endTime)).toBeLessThanOrEqual(nanos(resumed.startTime));
    expect(JSON.stringify(pressTrace.map((span) => span.attributes))).not.toContain(secretWord);
  });
});
