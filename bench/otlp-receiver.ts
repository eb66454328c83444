import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OTLP/HTTP trace receiver for `npm run bench -- --otlp`: what a traced parley exports to. */
export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter posts to `/v1/traces` under it). */
  readonly endpoint: string;
  /** Spans received since the last `takeSpanCount`, which starts the count again. */
  takeSpanCount(): number;
  close(): Promise<void>;
}

/**
 * Answers every export 200 and counts its spans, in the bench process beside the fakes, so what
 * tracing costs parley (making the spans, serializing and posting them) stays in parley's CPU, and
 * the bench can say how many spans a load made. It does what a collector's receiver does first (read
 * and parse the JSON body) and keeps nothing.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let spanCount = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }>;
        };
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) spanCount += scope.spans?.length ?? 0;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    takeSpanCount() {
      const count = spanCount;
      spanCount = 0;
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
