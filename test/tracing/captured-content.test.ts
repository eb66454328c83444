import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsSecret, redactedMarker } from '../../src/secrets/secret-detector.ts';
import { type InstalledTracing, installTracing } from '../../src/tracing/install-tracing.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Issue 38: with OTEL_GENAI_CAPTURE_CONTENT=on the chat spans carry the prompt and the reply, as the
 * GenAI conventions shape them, after the secret detector the logs use (and the configured secrets)
 * has scrubbed them. The terminal chat against the fake gateway, whose reply quotes the question.
 */
const exporter = new InMemorySpanExporter();
const pastedToken = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const configuredSecret = 'configured-secret-value-77';
let tracing: InstalledTracing;
let under: ConsoleUnderTest;

beforeAll(async () => {
  tracing = installTracing({
    serviceName: 'parley-test',
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    isContentCaptured: true,
    secrets: [configuredSecret],
  });
  under = await startConsoleUnderTest();
}, 30_000);
afterAll(async () => {
  await under.close();
  await tracing.stop();
});

const chatSpan = (): ReadableSpan | undefined =>
  exporter
    .getFinishedSpans()
    .find((span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT);

describe('content on the chat spans, when asked for', () => {
  it('records the prompt and the reply, scrubbed of secrets', async () => {
    expect(containsSecret({ text: pastedToken })).toBe(true);
    await under.type(`the heron flies at dawn, my key ${pastedToken} and ${configuredSecret}`);
    const span = await expect.poll(chatSpan, { timeout: 10_000 }).toBeDefined().then(chatSpan);
    const input = JSON.parse(String(span?.attributes[ATTR_GEN_AI_INPUT_MESSAGES]));
    expect(input[0].role).toBe('system');
    const question = input.at(-1);
    expect(question.role).toBe('user');
    expect(question.parts[0].type).toBe('text');
    expect(question.parts[0].content).toContain('the heron flies at dawn');
    expect(question.parts[0].content).toContain(redactedMarker);
    const output = JSON.parse(String(span?.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES]));
    expect(output).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: expect.any(String) }], finish_reason: 'stop' },
    ]);
    const everything = JSON.stringify(exporter.getFinishedSpans().map((finished) => finished.attributes));
    expect(everything).not.toContain(pastedToken);
    expect(everything).not.toContain(configuredSecret);
  });
});
