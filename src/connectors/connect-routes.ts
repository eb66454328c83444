import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.ts';
import { connectLinkLifetimeMs } from './connect-links.ts';
import { parleyClientMetadata } from './connector-oauth-provider.ts';
import type { Connectors } from './connectors.ts';

/** The cookie that ties a callback to the browser that opened the Connect link. */
const browserCookie = 'parley_connect';

/** Answers one HTTP request when it is a connector's; false when the path is not one of them. */
export type HttpRoute = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

/**
 * The connectors' pages on parley's HTTP server (at PUBLIC_URL):
 * - `GET /connect/<link>`: the Connect link's page, with a Continue button; the GET uses nothing up,
 *   since chat platforms and mail scanners fetch links to preview them (Discord embeds the links of
 *   a message), and such a fetch must not spend a single-use link;
 * - `POST /connect/<link>`: Continue: uses the link up and sends the browser to the authorization
 *   page with a cookie, so only the browser that pressed Continue can finish it;
 * - `GET /connectors/callback`: where the authorization server sends the person back;
 * - `GET`/`POST /answer/<id>`: a server's question to the asker (elicitation-questions.ts);
 * - `GET /connectors/client-metadata.json`: parley's Client ID Metadata Document (CIMD), for an
 *   authorization server that takes one instead of a registration.
 * Pages are short plain text: no token, code or state is ever echoed.
 */
export function createConnectRoutes({
  connectors,
  logger,
}: {
  connectors: Connectors;
  logger: Logger;
}): HttpRoute {
  const isSecure = connectors.redirectUrl.startsWith('https://');
  // As the browser sees it: PUBLIC_URL may put parley under a path of a proxy.
  const callbackPath = new URL(connectors.redirectUrl).pathname;
  return async (request, response) => {
    if (await connectors.questions?.route(request, response)) return true;
    const url = new URL(request.url ?? '/', 'http://parley');
    const linkMatch = /^\/connect\/([^/]+)$/.exec(url.pathname);
    const isOurs =
      linkMatch !== null ||
      url.pathname === '/connectors/callback' ||
      url.pathname === '/connectors/client-metadata.json';
    if (!isOurs) return false;
    const allowed = linkMatch ? ['GET', 'POST'] : ['GET'];
    if (!allowed.includes(request.method ?? '')) {
      response.writeHead(405, { allow: allowed.join(', ') }).end();
      return true;
    }
    if (linkMatch && request.method === 'GET') {
      const server = await connectors.peek(decodeURIComponent(linkMatch[1] ?? ''));
      if (server === undefined) {
        sendText(
          response,
          410,
          'This Connect link was already used or has expired. Ask for a new one in the chat.',
        );
        return true;
      }
      sendText(response, 200, continuePage(server), 'text/html; charset=utf-8');
      return true;
    }
    if (url.pathname === '/connectors/client-metadata.json') {
      if (connectors.clientMetadataUrl === undefined) {
        sendText(response, 404, 'parley offers a Client ID Metadata Document only at an https PUBLIC_URL.');
        return true;
      }
      const metadata = {
        client_id: connectors.clientMetadataUrl,
        ...parleyClientMetadata({
          redirectUrl: connectors.redirectUrl,
          auth: { kind: 'person', clientId: undefined, clientSecret: undefined, scope: undefined },
        }),
      };
      sendText(response, 200, JSON.stringify(metadata), 'application/json');
      return true;
    }
    if (linkMatch) {
      const opened = await connectors.open(decodeURIComponent(linkMatch[1] ?? ''));
      if (!opened) {
        sendText(
          response,
          410,
          'This Connect link was already used or has expired. Ask for a new one in the chat.',
        );
        return true;
      }
      const cookie = [
        `${browserCookie}=${opened.browserSecret}`,
        'HttpOnly',
        // Lax: the authorization server's redirect back is a top-level GET, which carries it.
        'SameSite=Lax',
        `Path=${callbackPath}`,
        `Max-Age=${Math.round(connectLinkLifetimeMs / 1000)}`,
        ...(isSecure ? ['Secure'] : []),
      ].join('; ');
      // 303: the browser follows a POST's answer with a GET.
      response
        .writeHead(303, { location: opened.location, 'set-cookie': cookie, 'cache-control': 'no-store' })
        .end();
      return true;
    }
    const state = url.searchParams.get('state');
    if (state === null) {
      sendText(
        response,
        400,
        'This sign-in is missing its state. Open your Connect link from the chat again.',
      );
      return true;
    }
    const finished = await connectors.finish({
      state,
      code: url.searchParams.get('code') ?? undefined,
      error: url.searchParams.get('error') ?? undefined,
      browserSecret: cookieValue(request.headers.cookie, browserCookie),
    });
    logger.info({ status: finished.status }, 'connector callback');
    // The cookie has done its work.
    response.setHeader('set-cookie', `${browserCookie}=; Path=${callbackPath}; Max-Age=0`);
    sendText(response, finished.status, finished.text);
    return true;
  };
}

/**
 * The page before the authorization: one button that posts back to the same link. The server's
 * name comes from the tools file (lowercase letters, digits and `-`), so nothing in it needs escaping.
 */
function continuePage(server: string): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Connect ${server}</title></head><body>`,
    `<h1>Connect ${server} to parley</h1>`,
    `<p>${server} will ask you to sign in and allow parley to act as you. This link works once.</p>`,
    '<form method="post"><button type="submit">Continue</button></form>',
    '</body></html>',
  ].join('');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  type = 'text/plain; charset=utf-8',
): void {
  response
    .writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      // Nothing to load, and never inside another site's frame (a Continue pressed unknowingly).
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    })
    .end(text);
}
