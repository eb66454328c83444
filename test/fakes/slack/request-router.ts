import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FakeSlackState } from './fake-slack-state.ts';
import { receiveUpload, serveFileDownload, serveSignInPage } from './file-routes.ts';
import { pathOf, sendBody, sendJson } from './http-io.ts';
import { receiveResponseUrlPost } from './response-url-route.ts';
import { type SocketModeServer, socketModePath } from './socket-mode-server.ts';
import { handleWebApiCall } from './web-api.ts';

/** Builds the `node:http` request listener: the Web API, uploads, private files, response URLs. */
export function createRequestListener(
  state: FakeSlackState,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    route(state, request, response).catch((error: unknown) => {
      console.error('fake slack: unexpected error', error);
      if (response.headersSent) {
        response.destroy();
      } else {
        sendJson(response, 500, {
          ok: false,
          error: 'fatal_error',
          detail: `fake slack bug: ${String(error)}`,
        });
      }
    });
  };
}

async function route(
  state: FakeSlackState,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = pathOf(request);
  const method = request.method ?? 'GET';
  if (path.startsWith('/api/')) {
    // Slack takes GET with query arguments too; the WebClient always POSTs.
    await handleWebApiCall(state, request, response, decodeURIComponent(path.slice('/api/'.length)));
  } else if (method === 'POST' && path.startsWith('/upload/')) {
    await receiveUpload(state, request, response, path);
  } else if (method === 'GET' && (path.startsWith('/files-pri/') || path.startsWith('/files-origin/'))) {
    serveFileDownload(state, request, response, path);
  } else if (method === 'GET' && path === '/') {
    serveSignInPage(state, response);
  } else if (method === 'POST' && (path.startsWith('/commands/') || path.startsWith('/actions/'))) {
    await receiveResponseUrlPost(state, request, response, path);
  } else {
    request.resume();
    sendBody(response, 404, 'text/plain; charset=utf-8', `fake slack: no route for ${method} ${path}`);
  }
}

/** Builds the `upgrade` listener: Socket Mode connections, nothing else. */
export function createUpgradeListener(
  socketServer: SocketModeServer,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (request, socket, head) => {
    if (pathOf(request) === socketModePath) {
      socketServer.handleUpgrade(request, socket, head);
    } else {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    }
  };
}
