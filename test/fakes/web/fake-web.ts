import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake site answers at one path. */
export interface FakePage {
  readonly status?: number;
  readonly contentType?: string;
  readonly body?: string | Uint8Array;
  /** A body of this many bytes, streamed in chunks as it is read (a 50 MB page costs no memory). */
  readonly streamedBytes?: number;
  /** Answer with a redirect (302) to this location instead. */
  readonly redirectTo?: string;
  readonly headers?: Record<string, string>;
}

/** A request the fake site received. */
export interface FakeWebRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** A running fake web site on 127.0.0.1: pages, robots.txt, redirects, endless bodies. */
export interface FakeWeb {
  readonly origin: string;
  readonly requests: FakeWebRequest[];
  /** Serves `page` at `path` (with its query, if it has one). */
  setPage(path: string, page: FakePage): void;
  /**
   * The robots.txt; undefined answers 404, which RFC 9309 (2.3.1.3) reads as "allow everything";
   * `{ status }` answers that status (a 5xx is "unreachable", 2.3.1.4: disallow everything).
   */
  setRobots(text: string | undefined | { status: number }): void;
  reset(): void;
  close(): Promise<void>;
}

const chunk = Buffer.alloc(64 * 1024, '<p>padding</p>\n');

/** Starts the fake site. Unknown paths answer 404. */
export async function startFakeWeb(): Promise<FakeWeb> {
  const pages = new Map<string, FakePage>();
  const requests: FakeWebRequest[] = [];
  let robots: string | undefined | { status: number };
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push({ path, headers: request.headers });
    if (path === '/robots.txt') {
      if (robots === undefined) response.writeHead(404).end();
      else if (typeof robots === 'object') response.writeHead(robots.status).end();
      else response.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      return;
    }
    const page = pages.get(path);
    if (!page) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (page.redirectTo) {
      response.writeHead(302, { location: page.redirectTo }).end();
      return;
    }
    response.writeHead(page.status ?? 200, {
      'content-type': page.contentType ?? 'text/html; charset=utf-8',
      ...page.headers,
    });
    if (page.streamedBytes === undefined) {
      response.end(page.body ?? '');
      return;
    }
    let left = page.streamedBytes;
    const writeMore = () => {
      while (left > 0 && !response.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, left));
        left -= piece.length;
        if (!response.write(piece)) {
          response.once('drain', writeMore);
          return;
        }
      }
      if (left <= 0) response.end();
    };
    writeMore();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    setPage: (path, page) => pages.set(path, page),
    setRobots(text) {
      robots = text;
    },
    reset() {
      pages.clear();
      requests.length = 0;
      robots = undefined;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
