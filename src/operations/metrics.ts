import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What parley tells an operator about itself, in Prometheus' text format at GET /metrics.
 *
 * The core reports events through the small functions below, one line where each event happens
 * (the engine, the gateway, the request scheduler, the store factory, an adapter's start); only this
 * file knows prom-client. There is one registry a process, as there is one bot a process: tests that
 * build several bots in one process share it, which only adds their counts together.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

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
const firstText = new Histogram({
  name: 'parley_reply_first_text_seconds',
  help: 'From the moment the engine starts a reply until its first text is on the platform.',
  labelNames: ['platform'],
  buckets: latencyBucketsSeconds,
  registers,
});
const finalLag = new Histogram({
  name: 'parley_reply_final_lag_seconds',
  help: "From the model's last token until the reply's exact final text is on the platform.",
  labelNames: ['platform'],
  buckets: latencyBucketsSeconds,
  registers,
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
const queueWait = new Histogram({
  name: 'parley_request_queue_wait_seconds',
  help: "How long a platform call waited for the bot's request budget, by priority (first-post, final-write, edit, cosmetic).",
  labelNames: ['priority'],
  buckets: latencyBucketsSeconds,
  registers,
});
const storeLatency = new Histogram({
  name: 'parley_store_operation_seconds',
  help: 'How long a store operation took, by backend (memory, sqlite, redis), operation and result (ok, error).',
  labelNames: ['backend', 'operation', 'result'],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
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
const toolSeconds = new Histogram({
  name: 'parley_tool_call_seconds',
  help: "How long a tool call took, from its start to its answer (after the asker's approval, for tools that act).",
  labelNames: ['tool', 'source'],
  buckets: latencyBucketsSeconds,
  registers,
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
  firstText.observe({ platform }, seconds);
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
  if (finalLagSeconds !== undefined) finalLag.observe({ platform }, finalLagSeconds);
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
  queueWait.observe({ priority }, Math.max(0, waitMs) / 1000);
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
  storeLatency.observe({ backend, operation, result: isOk ? 'ok' : 'error' }, seconds);
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
  toolSeconds.observe({ tool, source }, seconds);
}

export function recordMcpServerUp({ server, isUp }: { server: string; isUp: boolean }): void {
  mcpServerUp.set({ server }, isUp ? 1 : 0);
}
