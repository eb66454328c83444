import type { IncomingMessage, ServerResponse } from 'node:http';
import { accountRoutes } from './account-routes.ts';
import { channelRoutes } from './channel-routes.ts';
import { commandRoutes } from './command-routes.ts';
import { DiscordApiError, invalidFormBody } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { interactionRoutes } from './interaction-routes.ts';
import { preciseNowMs } from './precise-time.ts';
import type { RateLimitKind } from './rate-limiter.ts';
import { type RequestBody, readRequestBody } from './request-body.ts';
import type { RestCall } from './rest-call.ts';
import type { RestResult, RestRoute } from './rest-route.ts';
import { checkRequest, fieldProblems, type SpecificationViolation } from './specification-check.ts';
import { threadRoutes } from './thread-routes.ts';

const apiPrefix = '/api/v10';

// Literal segments are listed before parameters (`/users/@me` before `/users/:userId`), and the
// first match wins.
const routes: RestRoute[] = [
  ...accountRoutes,
  ...channelRoutes,
  ...threadRoutes,
  ...commandRoutes,
  ...interactionRoutes,
];

/** Every route name the fake serves, to catch a forced 429 aimed at a route that does not exist. */
export const knownRouteNames: ReadonlySet<string> = new Set(routes.map((route) => route.name));

/** What one answer was, for the request log. */
interface Outcome {
  route: string;
  params: Record<string, string>;
  status: number;
  rateLimit: RateLimitKind | 'banned' | null;
  errorCode: number | null;
  body: RequestBody | undefined;
  /** `X-RateLimit-Scope` of a 429, which decides whether it counts as an invalid request. */
  rateLimitScope?: string;
}

/** Builds the `node:http` listener: attachments, then the REST API under `/api/v10`. */
export function createRestHandler(
  context: FakeDiscordContext,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const atMs = preciseNowMs();
    const url = new URL(request.url ?? '/', context.origin);
    if (context.attachments.serve(request, response, url.pathname)) {
      return;
    }
    const ban = context.invalidRequests.banAnswer(atMs);
    const answered = ban
      ? refuseBanned(request, response, ban)
      : handle(context, request, response, url, atMs).then((outcome) => {
          context.invalidRequests.record({
            status: outcome.status,
            rateLimitScope: outcome.rateLimitScope,
            atMs: preciseNowMs(),
          });
          return outcome;
        });
    answered
      .then((outcome) => {
        const call: RestCall = {
          atMs,
          respondedAtMs: preciseNowMs(),
          method: request.method ?? 'GET',
          path: decodePath(url.pathname.slice(apiPrefix.length)),
          route: outcome.route,
          params: outcome.params,
          status: outcome.status,
          rateLimit: outcome.rateLimit,
          errorCode: outcome.errorCode,
          json: outcome.body?.json,
          fileCount: outcome.body?.files.size ?? 0,
        };
        context.requests.push(call);
        context.changes.emit({ type: 'rest-call', call });
      })
      .catch((error: unknown) => {
        console.error('fake discord: unexpected error', error);
        if (!response.headersSent) {
          sendJson(response, 500, { message: `fake discord bug: ${String(error)}`, code: 0 });
        } else {
          response.destroy();
        }
      });
  };
}

async function handle(
  context: FakeDiscordContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  receivedAtMs: number,
): Promise<Outcome> {
  const method = request.method ?? 'GET';
  const match = url.pathname.startsWith(`${apiPrefix}/`)
    ? matchRoute(method, url.pathname.slice(apiPrefix.length))
    : undefined;
  if (match === undefined) {
    const body = await readRequestBody(request).catch(() => undefined);
    // A route the fake does not serve may still be a real one; only one the specification does not
    // know is the bot's mistake.
    const violation = context.isCheckingSpecification
      ? checkRequest(checkedRequest(method, url, body))
      : undefined;
    if (violation?.kind === 'unknown-route' || violation?.kind === 'unknown-method') {
      context.specificationViolations.push(violation);
    }
    sendJson(response, 404, { message: '404: Not Found', code: 0 });
    return { route: 'unknown', params: {}, status: 404, rateLimit: null, errorCode: 0, body: undefined };
  }
  const { route, params } = match;
  const outcome = (status: number, extra: Partial<Outcome> = {}): Outcome => ({
    route: route.name,
    params,
    status,
    rateLimit: null,
    errorCode: null,
    body: undefined,
    ...extra,
  });

  if (route.auth === 'bot' && request.headers.authorization !== `Bot ${context.token}`) {
    await readRequestBody(request).catch(() => undefined);
    sendJson(response, 401, { message: '401: Unauthorized', code: 0 });
    return outcome(401, { errorCode: 0 });
  }

  let body: RequestBody;
  try {
    body = await readRequestBody(request);
  } catch (error) {
    return sendError(response, error, outcome, {});
  }

  const decision = context.rateLimiter.check({
    routeName: route.name,
    bucketKind: route.bucket,
    majorParameter: route.majorParameter === undefined ? '' : (params[route.majorParameter] ?? ''),
    isGlobalExempt: route.auth === 'token',
  });
  if (!decision.isAllowed) {
    sendJson(response, 429, decision.body, decision.headers);
    const rateLimitScope = decision.headers['x-ratelimit-scope'];
    return outcome(429, { rateLimit: decision.kind, body, ...(rateLimitScope ? { rateLimitScope } : {}) });
  }

  const violation = context.isCheckingSpecification
    ? checkRequest(checkedRequest(method, url, body))
    : undefined;
  if (violation !== undefined) {
    context.specificationViolations.push(violation);
    return sendError(
      response,
      refusalOf(violation),
      (status, extra) => outcome(status, { ...extra, body }),
      decision.headers,
    );
  }

  let result: RestResult;
  try {
    result = await route.handle(context, { params, query: url.searchParams, body, receivedAtMs });
  } catch (error) {
    return sendError(
      response,
      error,
      (status, extra) => outcome(status, { ...extra, body }),
      decision.headers,
    );
  }
  if (result.body === undefined) {
    response.writeHead(result.status, decision.headers);
    response.end();
  } else {
    sendJson(response, result.status, result.body, decision.headers);
  }
  return outcome(result.status, { body });
}

function checkedRequest(method: string, url: URL, body: RequestBody | undefined) {
  return {
    method,
    path: decodePath(url.pathname.slice(apiPrefix.length)),
    query: url.searchParams,
    json: body?.json,
    isMultipart: body?.isMultipart ?? false,
    fileCount: body?.files.size ?? 0,
  };
}

/**
 * What Discord answers a request its specification forbids: a path it does not have is 404, a method
 * the path does not take 405, and a body or parameter it refuses 400 "Invalid Form Body" (50035) with
 * the fields in `errors` (reference.mdx, "Error Messages"; topics/opcodes-and-status-codes.mdx,
 * "HTTP Response Codes").
 */
function refusalOf(violation: SpecificationViolation): DiscordApiError {
  switch (violation.kind) {
    case 'unknown-route':
      return new DiscordApiError({ status: 404, code: 0, message: '404: Not Found' });
    case 'unknown-method':
      return new DiscordApiError({ status: 405, code: 0, message: '405: Method Not Allowed' });
    case 'missing-body':
    case 'unexpected-body':
    case 'unsupported-media-type':
      return invalidFormBody([
        {
          path: [],
          error: {
            code: `SPECIFICATION_${violation.kind.replaceAll('-', '_').toUpperCase()}`,
            message: violation.kind.replaceAll('-', ' '),
          },
        },
      ]);
    default:
      return invalidFormBody(fieldProblems(violation.errors));
  }
}

/** The ban's answer (see invalid-requests.ts), to every request until it lifts. */
async function refuseBanned(
  request: IncomingMessage,
  response: ServerResponse,
  ban: { status: number; headers: Record<string, string>; body: string },
): Promise<Outcome> {
  await readRequestBody(request).catch(() => undefined);
  response.writeHead(ban.status, ban.headers).end(ban.body);
  return {
    route: 'banned',
    params: {},
    status: ban.status,
    rateLimit: 'banned',
    errorCode: null,
    body: undefined,
  };
}

function sendError(
  response: ServerResponse,
  error: unknown,
  outcome: (status: number, extra: Partial<Outcome>) => Outcome,
  headers: Record<string, string>,
): Outcome {
  if (!(error instanceof DiscordApiError)) {
    throw error;
  }
  sendJson(response, error.status, error.toBody(), { ...headers, ...error.headers });
  const rateLimitScope = error.headers['x-ratelimit-scope'];
  return outcome(error.status, { errorCode: error.code, ...(rateLimitScope ? { rateLimitScope } : {}) });
}

function matchRoute(
  method: string,
  path: string,
): { route: RestRoute; params: Record<string, string> } | undefined {
  const segments = path.split('/').map(decodeSegment);
  for (const route of routes) {
    if (route.method !== method) {
      continue;
    }
    const params = matchPattern(route.pattern, segments);
    if (params !== undefined) {
      return { route, params };
    }
  }
  return undefined;
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | undefined {
  const expected = pattern.split('/');
  if (expected.length !== segments.length) {
    return undefined;
  }
  const params: Record<string, string> = {};
  for (const [index, part] of expected.entries()) {
    const actual = segments[index] ?? '';
    if (part.startsWith(':')) {
      params[part.slice(1)] = actual;
    } else if (part !== actual) {
      return undefined;
    }
  }
  return params;
}

// `@original` arrives as `%40original`; interaction tokens never contain escapes.
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function decodePath(path: string): string {
  return path.split('/').map(decodeSegment).join('/');
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
