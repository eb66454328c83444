import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { afterEach, describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError, projectRoot } from '../../src/config.ts';
import { startTracing } from '../../src/tracing/start-tracing.ts';
import { inSpan, isTracingOn } from '../../src/tracing/tracer.ts';
import { reportTracingProblems } from '../../src/tracing/tracing-diagnostics.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

const missingEnvFile = join(tmpdir(), 'parley-no-such-env-file');
const required = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1', GATEWAY_API_KEY: 'secret-key-123' };
const load = (environment: Record<string, string>) =>
  loadParleyConfig({ environment: { ...required, ...environment }, envFilePath: missingEnvFile });

describe('the OTEL_ settings', () => {
  it('leave tracing off when no endpoint is set', () => {
    expect(load({}).tracing).toBeUndefined();
    expect(load({ OTEL_SERVICE_NAME: 'bot-a', OTEL_GENAI_CAPTURE_CONTENT: 'on' }).tracing).toBeUndefined();
  });

  it('turn it on with an endpoint, spans going to {endpoint}/v1/traces, content left out', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/' }).tracing).toEqual({
      tracesUrl: 'http://jaeger:4318/v1/traces',
      headers: {},
      serviceName: 'parley',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      isContentCaptured: false,
    });
  });

  it('take the traces endpoint as it is, the sampler, and headers as secrets', () => {
    const config = load({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://api.honeycomb.example/v1/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=hc%3Akey-0123456789, x-dataset=parley',
      OTEL_SERVICE_NAME: 'parley-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_GENAI_CAPTURE_CONTENT: 'on',
    });
    expect(config.tracing).toEqual({
      tracesUrl: 'https://api.honeycomb.example/v1/traces',
      headers: { 'x-honeycomb-team': 'hc:key-0123456789', 'x-dataset': 'parley' },
      serviceName: 'parley-eu',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      isContentCaptured: true,
    });
    expect(config.secrets).toContain('hc:key-0123456789');
  });

  it('are off with OTEL_SDK_DISABLED=true, and wrong values are named', () => {
    expect(
      load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
    ).toBe(undefined);
    let error: unknown;
    try {
      load({
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '2',
        OTEL_EXPORTER_OTLP_HEADERS: 'novalue',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/OTEL_TRACES_SAMPLER: must be one of always_on/);
    expect(problems).toMatch(/OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1/);
    expect(problems).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: must be name=value pairs/);
  });
});

describe('the SDK', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('is imported by no file of the core but start-tracing, and there only lazily', () => {
    const sdkImport = /from '@opentelemetry\/(?!api'|semantic-conventions)/;
    const files = readdirSync(join(projectRoot, 'src'), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts'),
    );
    const importers = files.filter((file) =>
      sdkImport.test(readFileSync(join(projectRoot, 'src', file), 'utf8')),
    );
    // install-tracing.ts holds the SDK; start-tracing.ts imports it, and the exporter, with import().
    expect(importers).toEqual([join('tracing', 'install-tracing.ts')]);
    const starter = readFileSync(join(projectRoot, 'src/tracing/start-tracing.ts'), 'utf8');
    expect(starter).toMatch(/import\('\.\/install-tracing\.ts'\)/);
    expect(starter).not.toMatch(/^import (?!type).*(install-tracing|@opentelemetry)/m);
    const importersOfInstall = files.filter((file) =>
      /^import (?!type).*install-tracing/m.test(readFileSync(join(projectRoot, 'src', file), 'utf8')),
    );
    expect(importersOfInstall).toEqual([]);
  });

  it('exports spans over OTLP/HTTP to the configured endpoint, with the service name', async () => {
    const bodies: Array<{ path: string; body: string; auth: string | undefined }> = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += String(chunk);
      });
      request.on('end', () => {
        bodies.push({
          path: request.url ?? '',
          body,
          auth: request.headers['x-api-key'] as string | undefined,
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    try {
      const config = load({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=receiver-key-42',
        OTEL_SERVICE_NAME: 'parley-under-test',
      });
      if (config.tracing === undefined) throw new Error('tracing should be on');
      expect(isTracingOn()).toBe(false);
      const tracing = await startTracing({ tracing: config.tracing, secrets: config.secrets });
      stop = () => tracing.stop();
      expect(isTracingOn()).toBe(true);
      await inSpan({ name: 'exported step' }, async () => {});
      await tracing.stop();
      stop = undefined;
      expect(isTracingOn()).toBe(false);
      expect(bodies).toHaveLength(1);
      expect(bodies[0]?.path).toBe('/v1/traces');
      expect(bodies[0]?.auth).toBe('receiver-key-42');
      const exported = JSON.parse(bodies[0]?.body ?? '{}');
      const resourceSpans = exported.resourceSpans[0];
      expect(resourceSpans.resource.attributes).toContainEqual({
        key: ATTR_SERVICE_NAME,
        value: { stringValue: 'parley-under-test' },
      });
      expect(resourceSpans.scopeSpans[0].spans.map((span: { name: string }) => span.name)).toEqual([
        'exported step',
      ]);
    } finally {
      receiver.close();
    }
  });
});

describe('a collector that does not answer', () => {
  it('is said in the log, and holds the shutdown a few seconds at most', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const config = load({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
    if (config.tracing === undefined) throw new Error('tracing should be on');
    const tracing = await startTracing({ tracing: config.tracing, secrets: config.secrets });
    const { logger, output } = createCapturedLogger([], { isTraced: true });
    reportTracingProblems(logger);
    try {
      await expect(inSpan({ name: 'a step' }, async () => 'done')).resolves.toBe('done');
    } finally {
      await tracing.stop();
    }
    const lines = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toContainEqual(
      expect.objectContaining({
        component: 'tracing',
        level: 40,
        msg: expect.stringMatching(/^the last spans could not be sent/),
      }),
    );
  });
});
