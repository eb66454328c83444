import Negotiator from 'negotiator';
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type HistogramConfiguration,
  Registry,
  type RegistryContentType,
} from 'prom-client';
import { exemplarOfActiveSpan, noExemplar } from '../tracing/metric-exemplars.ts';
import { slowStoreOperationMs } from '../tracing/store-spans.ts';

/**
 * What parley tells an operator about itself, in Prometheus' text format at GET /metrics (OpenMetrics,
 * with exemplars that lead to traces, for a scraper that asks for it).
 *
 * The core reports events through the small functions below, one line where each event happens
 * (the engine, the gateway, the request scheduler, the store factory, an adapter's start); only this
 * file knows prom-client. There is one registry a process, as there is one bot a process: tests that
 * build several bots in one process share it, which only adds their counts together.
 */
// Either format: Prometheus text, switched to OpenMetrics only while a scrape that asked for it renders.
export const metricsRegistry = new Registry<RegistryContentType>();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

/**
 * A histogram that keeps, per bucket, the trace of its latest observation (an exemplar), when
 * tracing is on. prom-client refuses `enableExemplars` on a metric built into a Prometheus-text
 * registry, though that format simply leaves exemplars out; so it is built into none and registered
 * by hand, and its exemplars show in the OpenMetrics text a scraper can ask for (`renderMetrics`).
 */
function histogramWithExemplars<LabelName extends string>(
  configuration: Omit<HistogramConfiguration<LabelName>, 'registers' | 'enableExemplars'>,
): Histogram<LabelName> {
  const histogram = new Histogram({ ...configuration, enableExemplars: true, registers: [] });
  metricsRegistry.registerMetric(histogram);
  return histogram;
}

// With their versions: an Accept that names a version (Prometheus names both) matches only that one.
const openMetricsType = 'application/openmetrics-text;version=1.0.0';
const prometheusTextType = 'text/plain;version=0.0.4';

/** Serializes renderings: an OpenMetrics one changes the registry while it runs (below). */
let lastRendering: Promise<unknown> = Promise.resolve();

/**
 * The metrics for a scrape: Prometheus text (0.0.4) as before, unless the scraper's Accept header
 * prefers OpenMetrics (Prometheus asks for it first by default), which carries the histograms'
 * exemplars. prom-client renders a registry in the format it is set to, and its OpenMetrics
 * rendering renames counters (`x_total` becomes `x`, printed `x_total`) for good; so the registry is
 * switched for the rendering, one rendering at a time, and the names and the format put back after.
 */
export function renderMetrics({
  accept,
}: {
  accept: string | undefined;
}): Promise<{ contentType: string; text: string }> {
  // Prometheus 3 adds `escaping=allow-utf-8` to every type it accepts; parley's names are plain
  // legacy names, the same under any escaping, so the parameter does not decide anything here.
  const comparable = (accept ?? '*/*').replace(/;\s*escaping=[^;,]*/g, '');
  const preferred = new Negotiator({ headers: { accept: comparable } }).mediaType([
    prometheusTextType,
    openMetricsType,
  ]);
  const render = async () => {
    if (preferred !== openMetricsType) {
      return { contentType: metricsRegistry.contentType, text: await metricsRegistry.metrics() };
    }
    const names = metricsRegistry.getMetricsAsArray().map((metric) => [metric, metric.name] as const);
    metricsRegistry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    try {
      return { contentType: Registry.OPENMETRICS_CONTENT_TYPE, text: await metricsRegistry.metrics() };
    } finally {
      metricsRegistry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
      for (const [metric, name] of names) (metric as { name: string }).name = name;
    }
  };
  const rendering = lastRendering.then(render, render);
  lastRendering = rendering.catch(() => undefined);
  return rendering;
}

// Seconds from 5 ms to 2 minutes: a first text is usually well under a second, a slow model or a
// saturated platform budget can take tens of seconds.
const latencyBucketsSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** How a reply ended, as the engine counts it. */
export type ReplyMetricStatus = 'complete' | 'cut' | 'failed';

const replies = new Counter({
  name: 'parley_replies_total',
  help: 'Chat replies finished, by platform and how they ended (complete, cut: some text then an error or Stop, failed: no text).',
  labelNames: ['platform', 'status'],
  registers,
});
const firstText = histogramWithExemplars({
  name: 'parley_reply_first_text_seconds',
  help: 'From the moment the engine starts a reply until its first text is on the platform.',
  labelNames: ['platform'],
  buckets: latencyBucketsSeconds,
});
const finalLag = histogramWithExemplars({
  name: 'parley_reply_final_lag_seconds',
  help: "From the model's last token until the reply's exact final text is on the platform.",
  labelNames: ['platform'],
  buckets: latencyBucketsSeconds,
});
const activeStreams = new Gauge({
  name: 'parley_active_streams',
  help: 'Replies being written right now.',
  labelNames: ['platform'],
  registers,
});
const platformRequests = new Counter({
  name: 'parley_platform_requests_total',
  help: 'Calls to a platform API, by route class (Discord: method and route; Slack: Web API method).',
  labelNames: ['platform', 'route_class'],
  registers,
});
const platformRateLimited = new Counter({
  name: 'parley_platform_rate_limited_total',
  help: 'Platform API calls answered 429, by route class.',
  labelNames: ['platform', 'route_class'],
  registers,
});
const platformConnected = new Gauge({
  name: 'parley_platform_connected',
  help: '1 while the platform connection is up, 0 while it is down or connecting.',
  labelNames: ['platform'],
  registers,
});
const gatewayRequests = new Counter({
  name: 'parley_gateway_requests_total',
  help: 'Requests to the Model Gateway, by operation (chat, chat-stream, images).',
  labelNames: ['operation'],
  registers,
});
const gatewayErrors = new Counter({
  name: 'parley_gateway_errors_total',
  help: 'Failed Model Gateway requests, by operation and kind (authentication, rate-limited, timeout, …).',
  labelNames: ['operation', 'kind'],
  registers,
});
const tokens = new Counter({
  name: 'parley_model_tokens_total',
  help: 'Tokens the gateway reported in usage, by model and direction (input: prompt, output: completion).',
  labelNames: ['model', 'direction'],
  registers,
});
const imagesGenerated = new Counter({
  name: 'parley_images_generated_total',
  help: 'Images the gateway drew, by model.',
  labelNames: ['model'],
  registers,
});
const replyFeedback = new Counter({
  name: 'parley_reply_feedback_total',
  help: 'Ratings people gave finished replies (👍 positive, 👎 negative), by platform and the model that wrote the reply.',
  labelNames: ['platform', 'model', 'rating'],
  registers,
});
const queueWait = histogramWithExemplars({
  name: 'parley_request_queue_wait_seconds',
  help: "How long a platform call waited for the bot's request budget, by priority (first-post, final-write, edit, cosmetic).",
  labelNames: ['priority'],
  buckets: latencyBucketsSeconds,
});
const storeLatency = histogramWithExemplars({
  name: 'parley_store_operation_seconds',
  help: 'How long a store operation took, by backend (memory, sqlite, redis), operation and result (ok, error).',
  labelNames: ['backend', 'operation', 'result'],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

const refusals = new Counter({
  name: 'parley_refusals_total',
  help: 'Requests refused before any work, by what refused them (access: the access rules; budget: a budget).',
  labelNames: ['kind'],
  registers,
});
const toolCalls = new Counter({
  name: 'parley_tool_calls_total',
  help: 'Tool calls the model made that ran, by tool and where it comes from (built-in, or the MCP server of the tools file).',
  labelNames: ['tool', 'source'],
  registers,
});
const toolErrors = new Counter({
  name: 'parley_tool_errors_total',
  help: 'Tool calls that ended in an error (the tool said so, failed, or passed its deadline), by tool and source.',
  labelNames: ['tool', 'source'],
  registers,
});
const toolSeconds = histogramWithExemplars({
  name: 'parley_tool_call_seconds',
  help: "How long a tool call took, from its start to its answer (after the asker's approval, for tools that act).",
  labelNames: ['tool', 'source'],
  buckets: latencyBucketsSeconds,
});
const mcpServerUp = new Gauge({
  name: 'parley_mcp_server_up',
  help: '1 while an MCP server of the tools file is connected and its tools offered, 0 while it is down or starting.',
  labelNames: ['server'],
  registers,
});

/** A reply started streaming; call the result with how it ended. */
export function recordReplyStarted({ platform }: { platform: string }): void {
  activeStreams.inc({ platform });
}

export function recordReplyFirstText({ platform, seconds }: { platform: string; seconds: number }): void {
  firstText.observe({ labels: { platform }, value: seconds, exemplarLabels: exemplarOfActiveSpan() });
}

export function recordReplyEnded({
  platform,
  status,
  finalLagSeconds,
}: {
  platform: string;
  status: ReplyMetricStatus;
  /** Undefined when the reply did not end with the model's last token (an error or Stop). */
  finalLagSeconds: number | undefined;
}): void {
  activeStreams.dec({ platform });
  replies.inc({ platform, status });
  if (finalLagSeconds !== undefined)
    finalLag.observe({
      labels: { platform },
      value: finalLagSeconds,
      exemplarLabels: exemplarOfActiveSpan(),
    });
}

export function recordPlatformRequest({
  platform,
  routeClass,
  status,
}: {
  platform: string;
  routeClass: string;
  /** HTTP status of the answer. */
  status: number;
}): void {
  platformRequests.inc({ platform, route_class: routeClass });
  if (status === 429) platformRateLimited.inc({ platform, route_class: routeClass });
}

export function recordPlatformConnection({
  platform,
  isConnected,
}: {
  platform: string;
  isConnected: boolean;
}): void {
  platformConnected.set({ platform }, isConnected ? 1 : 0);
}

export function recordGatewayRequest({ operation }: { operation: string }): void {
  gatewayRequests.inc({ operation });
}

export function recordGatewayError({ operation, kind }: { operation: string; kind: string }): void {
  gatewayErrors.inc({ operation, kind });
}

export function recordTokens({
  model,
  inputTokens,
  outputTokens,
}: {
  model: string;
  inputTokens: number;
  outputTokens: number;
}): void {
  tokens.inc({ model, direction: 'input' }, inputTokens);
  tokens.inc({ model, direction: 'output' }, outputTokens);
}

export function recordImagesGenerated({ model, count }: { model: string; count: number }): void {
  imagesGenerated.inc({ model }, count);
}

export function recordReplyFeedback({
  platform,
  model,
  rating,
}: {
  platform: string;
  model: string;
  rating: 'positive' | 'negative';
}): void {
  replyFeedback.inc({ platform, model, rating });
}

export function recordQueueWait({ priority, waitMs }: { priority: string; waitMs: number }): void {
  queueWait.observe({
    labels: { priority },
    value: Math.max(0, waitMs) / 1000,
    exemplarLabels: exemplarOfActiveSpan(),
  });
}

export function recordStoreOperation({
  backend,
  operation,
  isOk,
  seconds,
}: {
  backend: string;
  operation: string;
  isOk: boolean;
  seconds: number;
}): void {
  storeLatency.observe({
    labels: { backend, operation, result: isOk ? 'ok' : 'error' },
    value: seconds,
    // Only a slow operation leads to a trace: it is the one drawn as a span of the turn that waited on
    // it (store-spans.ts). The many quick ones are not worth looking up the active span for.
    exemplarLabels: seconds * 1000 >= slowStoreOperationMs ? exemplarOfActiveSpan() : noExemplar,
  });
}

export function recordToolCall({
  tool,
  source,
  isError,
  seconds,
}: {
  tool: string;
  source: string;
  isError: boolean;
  seconds: number;
}): void {
  toolCalls.inc({ tool, source });
  if (isError) toolErrors.inc({ tool, source });
  toolSeconds.observe({ labels: { tool, source }, value: seconds, exemplarLabels: exemplarOfActiveSpan() });
}

/** A request refused by the access rules or a budget: each one, where the audit trail keeps one an hour. */
export function recordRefusal({ kind }: { kind: 'access' | 'budget' }): void {
  refusals.inc({ kind });
}

/** What this process counted since it started: replies finished, those that failed, and refusals. */
export interface ActivityTotals {
  readonly replies: number;
  /** Replies that ended with no text: the model or the platform failed. */
  readonly failedReplies: number;
  readonly refusals: number;
}

/** Reads the counters above back, for the owner's console (the same numbers GET /metrics shows). */
export async function activityTotals(): Promise<ActivityTotals> {
  const [replyValues, refusalValues] = await Promise.all([replies.get(), refusals.get()]);
  const sum = (values: ReadonlyArray<{ value: number }>) =>
    values.reduce((total, one) => total + one.value, 0);
  return {
    replies: sum(replyValues.values),
    failedReplies: sum(replyValues.values.filter((one) => one.labels.status === 'failed')),
    refusals: sum(refusalValues.values),
  };
}

export function recordMcpServerUp({ server, isUp }: { server: string; isUp: boolean }): void {
  mcpServerUp.set({ server }, isUp ? 1 : 0);
}
