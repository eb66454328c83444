import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_URL_TEMPLATE,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledTracing, installTracing } from '../../src/tracing/install-tracing.ts';
import { ATTR_PARLEY_OUTBOUND_WAIT_MS, ATTR_PARLEY_REPLY_STATUS } from '../../src/tracing/span-attributes.ts';
import { appMention } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';

/**
 * Issue 38 on Slack: a mention's reply is a trace whose root is the reply's span, with the chat
 * request and each Web API call the outbound queue made, named by its method. The real Bolt app
 * against the fake Slack (native streaming refused, so the reply is posted and edited), the openai
 * SDK against the fake gateway.
 */
const exporter = new InMemorySpanExporter();
let tracing: InstalledTracing;
let bot: SlackUnderTest;

beforeAll(async () => {
  tracing = installTracing({
    serviceName: 'parley-test',
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    isContentCaptured: false,
    secrets: [],
  });
  bot = await startSlackUnderTest({ mode: 'http', slackOptions: { nativeStreaming: 'not_allowed' } });
}, 30_000);
afterAll(async () => {
  await bot.close();
  await tracing.stop();
});

describe('a trace per turn on Slack', () => {
  it('the reply is the root, with its chat request and its Web API calls by method', async () => {
    bot.gateway.enqueue({
      text: 'Low tide at Brest is at 14:05 today.',
      chunkSize: 5,
      delayBetweenChunksMs: 150,
    });
    await bot.deliverEvent(appMention({ channel: 'C0TRACES01', text: 'when is low tide?' }));
    const turn = await bot.slack.waitFor(
      () => exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent parley'),
      15_000,
    );
    expect(turn.parentSpanContext).toBeUndefined();
    expect(turn.attributes[ATTR_PARLEY_REPLY_STATUS]).toBe('complete');
    const trace = exporter
      .getFinishedSpans()
      .filter((span) => span.spanContext().traceId === turn.spanContext().traceId);
    expect(
      trace.some((span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT),
    ).toBe(true);
    const calls = trace.filter((span) => span.attributes[ATTR_URL_TEMPLATE] !== undefined);
    expect(calls.map((span) => span.name)).toEqual(
      expect.arrayContaining(['chat.postMessage', 'chat.update']),
    );
    for (const call of calls) expect(call.attributes[ATTR_PARLEY_OUTBOUND_WAIT_MS]).toBeGreaterThanOrEqual(0);
  });
});
