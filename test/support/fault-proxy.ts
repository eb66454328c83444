import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the proxy's rules see it: form bodies are decoded, so rules can read their fields. */
export interface ProxiedRequest {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly bodyText: string;
}

/** What the proxy does instead of forwarding: answer with a status, or drop the connection. */
export type InjectedFault =
  | { readonly kind: 'status'; readonly status: number; readonly body: string; readonly contentType: string }
  | { readonly kind: 'drop' };

/** One fault to inject into the requests that match, at most `count` times. */
export interface FaultRule {
  readonly matches: (request: ProxiedRequest) => boolean;
  readonly fault: InjectedFault;
  count: number;
}

/**
 * Changes a forwarded response on its way back, chunk by chunk: the text to send instead (e.g. one
 * SSE event with broken JSON), or `null` to send nothing more and keep the connection open, as a
 * server that hangs mid-response does. Returns `undefined` for a response it leaves alone.
 */
export type ResponseRewrite = (request: ProxiedRequest) => ChunkRewrite | undefined;
export type ChunkRewrite = (chunk: string) => string | null;

/**
 * An HTTP proxy between the bot and a fake, for the faults a fake does not make itself: a burst of
 * 503s from a load balancer in front of Discord or Slack, a connection dropped mid-request, a stream
 * corrupted on the way. Everything else passes through untouched.
 */
export interface FaultProxy {
  /** E.g. `http://127.0.0.1:40123`: give this to the bot in place of the fake's origin. */
  readonly origin: string;
  /** Adds a rule; it is used up after `count` matching requests. */
  inject(rule: FaultRule): FaultRule;
  /** Sets (or clears) the response rewrite. */
  rewriteResponses(rewrite: ResponseRewrite | undefined): void;
  /** How many requests got an injected fault so far. */
  readonly injectedCount: number;
  close(): Promise<void>;
}

export async function startFaultProxy({ targetOrigin }: { targetOrigin: string }): Promise<FaultProxy> {
  const target = new URL(targetOrigin);
  const rules: FaultRule[] = [];
  let rewrite: ResponseRewrite | undefined;
  let injectedCount = 0;
  const server = createServer((incoming, outgoing) => {
    void readBody(incoming).then((body) => {
      const proxied: ProxiedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        bodyText: decodedBody(body, incoming.headers['content-type']),
      };
      const rule = rules.find((candidate) => candidate.count > 0 && candidate.matches(proxied));
      if (rule !== undefined) {
        rule.count -= 1;
        injectedCount += 1;
        answerWithFault(rule.fault, incoming, outgoing);
        return;
      }
      forward({ incoming, outgoing, body, target, rewrite: rewrite?.(proxied) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    inject(rule) {
      rules.push(rule);
      return rule;
    },
    rewriteResponses(next) {
      rewrite = next;
    },
    get injectedCount() {
      return injectedCount;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function forward({
  incoming,
  outgoing,
  body,
  target,
  rewrite,
}: {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  body: Buffer;
  target: URL;
  rewrite: ChunkRewrite | undefined;
}): void {
  const upstream = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      method: incoming.method,
      path: incoming.url,
      headers: { ...incoming.headers, host: target.host },
    },
    (response) => {
      // A response the server broke off must break off for the client too, not hang.
      response.on('close', () => {
        if (!response.complete) outgoing.destroy();
      });
      const headers = { ...response.headers };
      if (rewrite !== undefined) delete headers['content-length'];
      outgoing.writeHead(response.statusCode ?? 502, headers);
      if (rewrite === undefined) {
        response.pipe(outgoing);
        return;
      }
      response.setEncoding('utf8');
      let isStalled = false;
      response.on('data', (chunk: string) => {
        if (isStalled) return;
        const rewritten = rewrite(chunk);
        if (rewritten === null) isStalled = true;
        else outgoing.write(rewritten);
      });
      response.on('end', () => {
        if (!isStalled) outgoing.end();
      });
    },
  );
  upstream.on('error', () => outgoing.destroy());
  // A client that goes away (the bot timed out) ends the upstream request too.
  outgoing.on('close', () => upstream.destroy());
  upstream.end(body);
}

function answerWithFault(fault: InjectedFault, incoming: IncomingMessage, outgoing: ServerResponse): void {
  if (fault.kind === 'drop') {
    incoming.socket.destroy();
    return;
  }
  outgoing.writeHead(fault.status, { 'content-type': fault.contentType }).end(fault.body);
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function decodedBody(body: Buffer, contentType: string | undefined): string {
  const text = body.toString('utf8');
  if (contentType?.includes('application/x-www-form-urlencoded') !== true) return text;
  return JSON.stringify(Object.fromEntries(new URLSearchParams(text)));
}

/** A 503 as a load balancer in front of a platform sends it: plain text, no JSON. */
export function serviceUnavailable(): InjectedFault {
  return {
    kind: 'status',
    status: 503,
    body: 'upstream connect error or disconnect/reset before headers',
    contentType: 'text/plain',
  };
}
