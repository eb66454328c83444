import { z } from 'zod';
import { quoteSettingValue } from './quote-setting-value.ts';
import { document, httpUrl, optionalText, section, text } from './setting-schemas.ts';

/** The samplers OpenTelemetry's `OTEL_TRACES_SAMPLER` names, as its SDK configuration spec lists them. */
export const traceSamplers = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** One of `traceSamplers`. */
export type TraceSamplerName = (typeof traceSamplers)[number];

const optionalHttpUrl = (example: string) => optionalText.pipe(httpUrl({ example }).optional());

// `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs separated by commas, values percent-encoded (the
// OTLP exporter spec, in the W3C Baggage format).
const otlpHeaders = optionalText.transform((value, context): Readonly<Record<string, string>> => {
  if (value === undefined) return {};
  const headers: Record<string, string> = {};
  for (const pair of value.split(',')) {
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator).trim();
    if (separator <= 0 || name === '') {
      // The value may be a credential: only its position is said.
      context.addIssue({ code: 'custom', message: 'must be name=value pairs separated by commas' });
      return {};
    }
    headers[name] = decodeURIComponent(pair.slice(separator + 1).trim());
  }
  return headers;
});

const samplerRatio = optionalText.transform((value, context): number | undefined => {
  if (value === undefined) return undefined;
  const ratio = Number(value);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  context.addIssue({
    code: 'custom',
    message: `must be a number from 0 to 1, got ${quoteSettingValue(value)}`,
  });
  return undefined;
});

/**
 * OpenTelemetry traces (issue 38): the standard `OTEL_*` variables, as the SDK's environment
 * specification defines them, read here like every other setting and handed to the SDK.
 */
export const tracingSettings = section('Traces', {
  OTEL_EXPORTER_OTLP_ENDPOINT: document(optionalHttpUrl('http://localhost:4318'), {
    description:
      'Turns traces on: the OTLP/HTTP collector (Jaeger, Grafana Tempo, an OpenTelemetry Collector) that spans are sent to, at {endpoint}/v1/traces. Unset (and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT unset): no trace is kept and the OpenTelemetry SDK is not even loaded.',
    typeText: 'http(s) URL',
    defaultText: 'unset: tracing off',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: document(optionalHttpUrl('http://localhost:4318/v1/traces'), {
    description:
      'The full URL spans are posted to, taken as it is; wins over OTEL_EXPORTER_OTLP_ENDPOINT. Either turns traces on.',
    typeText: 'http(s) URL',
    defaultText: 'OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces',
  }),
  OTEL_EXPORTER_OTLP_HEADERS: document(otlpHeaders, {
    description:
      "Headers sent with every export, as name=value pairs separated by commas (values percent-encoded), e.g. a hosted backend's API key. Treated as secrets: never logged.",
    typeText: 'name=value, …',
  }),
  OTEL_SERVICE_NAME: document(text('parley'), {
    description: 'The service.name the traces carry; several bots on one backend tell theirs apart by it.',
  }),
  OTEL_TRACES_SAMPLER: document(
    z
      .enum(traceSamplers, { error: `must be one of ${traceSamplers.join(', ')}` })
      .default('parentbased_always_on'),
    {
      description:
        'Which traces are kept: always_on, always_off, traceidratio (a share of them, OTEL_TRACES_SAMPLER_ARG), or parentbased_… (follow the caller where there is one).',
    },
  ),
  OTEL_TRACES_SAMPLER_ARG: document(samplerRatio, {
    description: 'The share of traces kept by the traceidratio samplers, from 0 to 1.',
    typeText: 'number 0–1',
    defaultText: '1',
  }),
  OTEL_SDK_DISABLED: document(
    z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
    { description: 'true turns traces off even with an endpoint set.' },
  ),
  OTEL_GENAI_CAPTURE_CONTENT: document(z.enum(['on', 'off'], { error: 'must be on or off' }).default('off'), {
    description:
      "on: the chat spans also carry the prompts and the model's replies (gen_ai.input.messages, gen_ai.output.messages), scrubbed of secrets by the same detector as the logs. Off by default: what people write stays out of the traces.",
  }),
});
