import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server standing for something inside the network (a metadata service, an admin page). */
export interface InternalTarget {
  /** `http://127.0.0.1:<port>`: loopback, like every private address parley must refuse. */
  readonly origin: string;
  readonly port: number;
  /** TCP connections it accepted: any at all means a request was attempted. */
  readonly connectionCount: number;
  /** Requests it received, by path. */
  readonly requests: ReadonlyArray<Pick<IncomingMessage, 'url' | 'headers'>>;
  close(): Promise<void>;
}

/** Starts the target on 127.0.0.1; it answers every request with a tiny "secret" page. */
export async function startInternalTarget(): Promise<InternalTarget> {
  const requests: Array<Pick<IncomingMessage, 'url' | 'headers'>> = [];
  let connectionCount = 0;
  const server = createServer((request, response) => {
    requests.push({ url: request.url, headers: request.headers });
    response.writeHead(200, { 'content-type': 'image/png' });
    response.end('internal secret');
  });
  server.on('connection', () => {
    connectionCount += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    get connectionCount() {
      return connectionCount;
    },
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
