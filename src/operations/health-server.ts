import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.ts';
import type { Readiness } from './health.ts';
import { renderMetrics } from './metrics.ts';

/**
 * A route of another part of parley served on this port (the connectors' Connect link and OAuth
 * callback): it answers and resolves true, or resolves false when the path is not its own.
 */
export type ExtraRoute = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

/** The running health server; `port` is the real one when 0 was asked for. */
export interface HealthServer {
  readonly port: number;
  /** Lets the process exit while the server still listens: health checks never keep parley alive. */
  unref(): void;
  close(): Promise<void>;
}

/**
 * Serves what an orchestrator and Prometheus look for on one port:
 * - `GET /healthz`: 200 while the process answers at all (liveness);
 * - `GET /readyz`: 200 when the store answers and every platform is connected, else 503 with the
 *   reasons as JSON (readiness);
 * - `GET /metrics`: the Prometheus text format, or OpenMetrics (with exemplars) when asked for.
 * - each of `routes`, tried before these (the connectors' pages, reached at PUBLIC_URL).
 */
export async function startHealthServer({
  port,
  host = '127.0.0.1',
  readiness,
  logger,
  routes = [],
}: {
  port: number;
  /**
   * The interface to listen on. /metrics and /readyz have no authentication, so the default is
   * loopback: only this machine (and a container's own HEALTHCHECK) reaches them; HEALTH_HOST
   * opens them to a network on purpose.
   */
  host?: string;
  readiness: () => Promise<Readiness>;
  logger: Logger;
  routes?: readonly ExtraRoute[];
}): Promise<HealthServer> {
  const server = createServer((request, response) => {
    routeExtraFirst({ request, response, readiness, routes }).catch((error: unknown) => {
      logger.error({ err: error, path: request.url }, 'health server request failed');
      if (!response.headersSent) sendJson(response, 500, { status: 'error' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let isUnreferenced = false;
  // A scraper's keep-alive connection would hold the process open as much as the listening socket.
  server.on('connection', (socket) => {
    if (isUnreferenced) socket.unref();
  });
  const { port: actualPort, address } = server.address() as AddressInfo;
  logger.info(
    { host: address, port: actualPort },
    'health and metrics at GET /healthz, /readyz and /metrics',
  );
  return {
    port: actualPort,
    unref: () => {
      isUnreferenced = true;
      server.unref();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function routeExtraFirst({
  request,
  response,
  readiness,
  routes,
}: {
  request: IncomingMessage;
  response: ServerResponse;
  readiness: () => Promise<Readiness>;
  routes: readonly ExtraRoute[];
}): Promise<void> {
  for (const extra of routes) if (await extra(request, response)) return;
  await route({ request, response, readiness });
}

async function route({
  request,
  response,
  readiness,
}: {
  request: IncomingMessage;
  response: ServerResponse;
  readiness: () => Promise<Readiness>;
}): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://health').pathname;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  switch (path) {
    case '/healthz':
      sendJson(response, 200, { status: 'ok' });
      return;
    case '/readyz': {
      const result = await readiness();
      const warnings = result.warnings.length > 0 ? { warnings: result.warnings } : {};
      sendJson(
        response,
        result.isReady ? 200 : 503,
        result.isReady
          ? { status: 'ready', checks: result.checks, ...warnings }
          : { status: 'not ready', reason: result.reasons.join('; '), checks: result.checks, ...warnings },
      );
      return;
    }
    case '/metrics': {
      const { contentType, text } = await renderMetrics({ accept: request.headers.accept });
      response.writeHead(200, { 'content-type': contentType }).end(text);
      return;
    }
    default:
      sendJson(response, 404, { status: 'not found', paths: ['/healthz', '/readyz', '/metrics'] });
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text);
}
