import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledTracing, installTracing } from '../../src/tracing/install-tracing.ts';
import { ATTR_PARLEY_ACCESS_ALLOWED, ATTR_PARLEY_COMMAND_NAME } from '../../src/tracing/span-attributes.ts';
import { inSpan } from '../../src/tracing/tracer.ts';
import { makeDiscordAdmin } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Issue 38: a command is a trace of its own, and so is each run of a schedule it made, however the
 * run's timer was set; on the real bot (Discord and the gateway faked, the timer wheel on a clock
 * the test moves), spans in the SDK's in-memory exporter.
 */
const exporter = new InMemorySpanExporter();
let tracing: InstalledTracing;
let under: DiscordUnderTest;
// Monday 2 June 2025, 08:00 in Berlin.
const startMs = Date.parse('2025-06-02T06:00:00Z');

beforeAll(async () => {
  tracing = installTracing({
    serviceName: 'parley-test',
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    isContentCaptured: false,
    secrets: [],
  });
  under = await startDiscordUnderTest(
    { SCHEDULE_TIMEZONE: 'Europe/Berlin' },
    { scheduleClockStartMs: startMs },
  );
}, 30_000);
afterAll(async () => {
  await under.close();
  await tracing.stop();
});

const named = (name: string) => exporter.getFinishedSpans().find((span) => span.name === name);
const traceOf = (root: ReadableSpan) =>
  exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === root.spanContext().traceId);
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

describe('commands and scheduled runs', () => {
  it('a /schedule is a command span with its access decision; its run a trace of its own with the reply', async () => {
    const admin = makeDiscordAdmin(under);
    under.discord.sendSlashCommand({
      name: 'schedule',
      channelId: under.generalChannelId,
      user: admin.id,
      options: { text: 'every weekday 09:00 what changed today?' },
    });
    const command = await under.discord.waitFor(() => named('command schedule'), { timeoutMs: 10_000 });
    expect(parentOf(command)).toBeUndefined();
    expect(command.attributes[ATTR_PARLEY_COMMAND_NAME]).toBe('schedule');
    const authorize = traceOf(command).find((span) => span.name === 'authorize');
    expect(parentOf(authorize)).toBe(command.spanContext().spanId);
    expect(authorize?.attributes[ATTR_PARLEY_ACCESS_ALLOWED]).toBe(true);

    under.gateway.enqueue({ text: 'The release moved to Friday.' });
    // The timer fires inside another span, as a real timer set during the /schedule command would
    // (its callback keeps the command's context): the run still starts a trace of its own.
    await inSpan({ name: 'elsewhere' }, async () =>
      under.scheduling?.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z')),
    );
    const run = await under.discord.waitFor(() => named('scheduled_run place'), { timeoutMs: 15_000 });
    expect(parentOf(run)).toBeUndefined();
    expect(run.spanContext().traceId).not.toBe(command.spanContext().traceId);
    const runTrace = traceOf(run);
    const turn = runTrace.find((span) => span.name === 'invoke_agent parley');
    expect(parentOf(turn)).toBe(run.spanContext().spanId);
    const chat = runTrace.find(
      (span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT,
    );
    expect(parentOf(chat)).toBe(turn?.spanContext().spanId);
  });
});
