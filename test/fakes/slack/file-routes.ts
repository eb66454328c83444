import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeSlackState } from './fake-slack-state.ts';
import { readBodyBytes, sendBody } from './http-io.ts';

/**
 * GET of a private file URL. `url_private` needs `Authorization: Bearer <token>` (Slack Platform
 * Blog, "Important Changes to Files in the Web API"; docs.slack.dev file object). With the bot
 * token: the bytes, or a redirect where the file says so (to the same file on another Slack file
 * host, which needs the token again; or away from Slack). Without it (or with anything but exactly
 * `Bearer <token>`) Slack does not answer 401: it redirects to its sign-in page, so a bot that only
 * checks the status gets an HTML page where it expected an image.
 */
export function serveFileDownload(
  state: FakeSlackState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): void {
  // `/files-pri/<team>-<file id>/<name>`, `/files-pri/<team>-<file id>/download/<name>`, or the same
  // under `/files-origin/` (the other file host a download may be redirected to).
  const [, host, teamAndFile = ''] = path.split('/');
  const fileId = teamAndFile.split('-')[1] ?? '';
  const stored = state.files.get(fileId);
  const authorization = request.headers.authorization;
  const isAuthorized = authorization === `Bearer ${state.botToken}`;
  if (stored !== undefined) {
    state.files.downloads.push({
      fileId,
      isAuthorized,
      authorization,
      host: host === 'files-origin' ? 'files-origin' : 'files-pri',
      atMs: Date.now(),
    });
    state.notifyChange();
  }
  if (!isAuthorized) {
    const redirect = `${state.origin}/?redir=${encodeURIComponent(path)}`;
    response.writeHead(302, { location: redirect, 'content-length': 0 });
    response.end();
    return;
  }
  if (stored === undefined) {
    sendBody(
      response,
      404,
      'text/html; charset=utf-8',
      '<!DOCTYPE html><html><body>File not found</body></html>',
    );
    return;
  }
  if (stored.redirect !== undefined && host === 'files-pri') {
    const location =
      stored.redirect === 'another-slack-host'
        ? `${state.origin}${path.replace(/^\/files-pri\//, '/files-origin/')}`
        : stored.redirect.to;
    response.writeHead(302, { location, 'content-length': 0 });
    response.end();
    return;
  }
  sendBody(response, 200, stored.file.mimetype, stored.bytes, {
    'content-disposition': `attachment; filename="${stored.file.name}"`,
  });
}

/** The page an unauthenticated file download lands on. */
export function serveSignInPage(state: FakeSlackState, response: ServerResponse): void {
  const page = [
    '<!DOCTYPE html>',
    '<html lang="en-US">',
    `<head><meta charset="utf-8"><title>Sign in to ${state.workspace.teamName} | Slack</title></head>`,
    '<body>',
    `<h1>Sign in to ${state.workspace.teamName}</h1>`,
    `<p>${state.workspace.domain}.slack.com</p>`,
    '<form method="post"><input type="email" name="email"><input type="password" name="password">',
    '<button type="submit">Sign in</button></form>',
    '</body>',
    '</html>',
  ].join('\n');
  sendBody(response, 200, 'text/html; charset=utf-8', page);
}

/**
 * POST of a file's bytes to the `upload_url` from `files.getUploadURLExternal`. The WebClient sends
 * them as multipart form data (one file field); a raw body is accepted too.
 */
export async function receiveUpload(
  state: FakeSlackState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const upload = state.files.pendingUpload(path.split('/').at(-1) ?? '');
  const body = await readBodyBytes(request);
  if (upload === undefined) {
    sendBody(response, 404, 'text/plain; charset=utf-8', 'Not Found');
    return;
  }
  const contentType = request.headers['content-type'] ?? '';
  upload.bytes = contentType.toLowerCase().startsWith('multipart/form-data')
    ? await firstFileOf(body, contentType)
    : body;
  state.notifyChange();
  sendBody(response, 200, 'text/plain; charset=utf-8', `OK - ${upload.bytes.length}`);
}

async function firstFileOf(body: Buffer, contentType: string): Promise<Buffer> {
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  for (const [, value] of form) {
    if (typeof value !== 'string') {
      return Buffer.from(await value.arrayBuffer());
    }
  }
  const [first] = [...form.values()];
  return Buffer.from(typeof first === 'string' ? first : '');
}
