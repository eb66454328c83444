import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { UserFacingError } from '../user-facing-error.ts';

/** Every way a gateway call can fail, as one discriminant. */
export type GatewayErrorKind =
  | 'authentication'
  | 'insufficient-balance'
  | 'unknown-model'
  | 'wrong-url'
  | 'invalid-request'
  | 'rate-limited'
  | 'timeout'
  | 'server-error'
  | 'connection'
  | 'stream-interrupted'
  | 'cancelled'
  | 'invalid-reply'
  /** The budgets could not pay for (or could not be read to cover) the request: nothing was sent. */
  | 'budget';

const expectedBaseUrlShape = 'the base URL ending in the API version, like https://gateway.example/api/v1';

const userMessages: Record<GatewayErrorKind, string> = {
  authentication: 'The model service rejected our API key. An admin needs to check GATEWAY_API_KEY.',
  'insufficient-balance': 'The model service balance is used up. An admin needs to top it up.',
  'unknown-model': 'That model is not available on the model service.',
  'wrong-url': `The model service address is wrong. An admin needs to check GATEWAY_BASE_URL: ${expectedBaseUrlShape}.`,
  'invalid-request': 'The model service did not accept this request.',
  'rate-limited': 'The model service is busy right now. Please try again in a moment.',
  timeout: 'The model took too long to answer. Please try again.',
  'server-error': 'The model service had an error. Please try again in a moment.',
  connection: 'The model service cannot be reached right now. Please try again in a moment.',
  'stream-interrupted': 'The connection to the model broke off mid-reply.',
  cancelled: 'Stopped.',
  'invalid-reply': 'The model gave an answer in the wrong shape, even after a second try.',
  budget: 'Not sent: a budget cannot pay for this right now.',
};

/**
 * The one error type the gateway client throws. `userMessage` is short and safe to show a person;
 * `message` and `detail` are for the log (scrubbed of secrets by the logger).
 */
export class GatewayError extends UserFacingError {
  readonly kind: GatewayErrorKind;
  /** HTTP status of the gateway response, when there was one. */
  readonly status: number | undefined;
  /** How long the gateway asked us to wait before trying again (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;
  /** What the gateway said, for the log only: it may quote the request. */
  readonly detail: string | undefined;

  constructor(options: {
    kind: GatewayErrorKind;
    message: string;
    userMessage?: string;
    status?: number;
    retryAfterMs?: number;
    detail?: string;
    cause?: unknown;
  }) {
    super({
      message: options.message,
      userMessage: options.userMessage ?? userMessages[options.kind],
      cause: options.cause,
    });
    this.name = 'GatewayError';
    this.kind = options.kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.detail = options.detail;
  }
}

/** The request a failure answered, so a wrong address can be named. */
export interface FailedRequest {
  readonly method: string;
  /** The full URL the request went to. */
  readonly url: string;
}

/** Turns anything the `openai` SDK (or fetch, or our own parsing) threw into a GatewayError. */
export function toGatewayError(error: unknown, request?: FailedRequest): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new GatewayError({ kind: 'timeout', message: 'gateway request timed out', cause: error });
  }
  if (error instanceof APIUserAbortError || (error instanceof Error && error.name === 'AbortError')) {
    return new GatewayError({ kind: 'cancelled', message: 'request cancelled', cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new GatewayError({ kind: 'timeout', message: 'gateway request timed out', cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new GatewayError({
      kind: 'connection',
      message: `gateway unreachable: ${error.message}`,
      cause: error,
    });
  }
  if (error instanceof APIError && error.status !== undefined) {
    return fromStatus({
      status: error.status,
      body: error.error,
      headers: error.headers,
      sdkMessage: error.message,
      cause: error,
      request,
    });
  }
  if (error instanceof APIError) {
    // The SDK raises a status-less APIError when a stream carries an error event or breaks off.
    return new GatewayError({ kind: 'stream-interrupted', message: error.message, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/terminated|socket|ECONNRESET|premature close|other side closed/i.test(message)) {
    return new GatewayError({ kind: 'stream-interrupted', message, cause: error });
  }
  return new GatewayError({
    kind: 'server-error',
    message: `unexpected gateway failure: ${message}`,
    cause: error,
  });
}

function fromStatus(options: {
  status: number;
  body: unknown;
  headers: Headers | undefined;
  sdkMessage: string;
  cause: unknown;
  request: FailedRequest | undefined;
}): GatewayError {
  const { status, body, headers, cause, request } = options;
  const bodyError = readErrorBody(body);
  const detail = bodyError.message ?? options.sdkMessage;
  const message = `gateway answered ${status}: ${detail}`;
  const base = { message, status, detail, cause };
  const hint = `${bodyError.code ?? ''} ${bodyError.type ?? ''} ${detail}`.toLowerCase();

  if (status === 401 || status === 403) return new GatewayError({ kind: 'authentication', ...base });
  if (status === 402 || /insufficient|balance|quota|credit/.test(hint)) {
    return new GatewayError({ kind: 'insufficient-balance', ...base });
  }
  if (status === 404 && isWrongAddress({ body, hint })) return wrongAddressError({ base, request });
  if (status === 404 || /model_not_found|unknown model|model .*not (found|exist)/.test(hint)) {
    return new GatewayError({ kind: 'unknown-model', ...base });
  }
  if (status === 429) {
    const retryAfterMs = readRetryAfterMs(headers);
    return new GatewayError({
      kind: 'rate-limited',
      ...base,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      userMessage:
        retryAfterMs === undefined
          ? userMessages['rate-limited']
          : `The model service is busy. Please try again in ${Math.ceil(retryAfterMs / 1000)} s.`,
    });
  }
  if (status === 408 || status === 504) return new GatewayError({ kind: 'timeout', ...base });
  if (status >= 500) return new GatewayError({ kind: 'server-error', ...base });
  if (status === 400 || status === 422) return new GatewayError({ kind: 'invalid-request', ...base });
  return new GatewayError({ kind: 'server-error', ...base });
}

// The gateway's own 404 (an unknown model) comes as its error JSON. A web page, plain text, an empty
// body or JSON that says the path is unknown means the request went to an address that is not the
// gateway's API: most often a base URL without /api/v1, or with /chat/completions already on it.
function isWrongAddress({ body, hint }: { body: unknown; hint: string }): boolean {
  if (/model/.test(hint)) return false;
  if (/unknown_url|invalid_url|unknown request url|invalid url|no route|route not found/.test(hint))
    return true;
  const isErrorJson =
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Record<string, unknown>).error === 'object' &&
    (body as Record<string, unknown>).error !== null;
  return !isErrorJson;
}

function wrongAddressError({
  base,
  request,
}: {
  base: { message: string; status: number; detail: string; cause: unknown };
  request: FailedRequest | undefined;
}): GatewayError {
  if (!request) return new GatewayError({ kind: 'wrong-url', ...base });
  const tried = `${request.method} ${withoutCredentials(request.url)}`;
  return new GatewayError({
    kind: 'wrong-url',
    ...base,
    message: `${base.message} (${tried}: not the gateway's API; GATEWAY_BASE_URL should be ${expectedBaseUrlShape})`,
    userMessage: `The model service address is wrong: ${tried} answered 404. An admin needs to set GATEWAY_BASE_URL to ${expectedBaseUrlShape}.`,
  });
}

// An operator may have put user:password@ in the base URL; it is not shown to anyone.
function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  return parsed.toString();
}

interface ErrorBodyFields {
  message: string | undefined;
  code: string | undefined;
  type: string | undefined;
}

// The reference does not specify error bodies: read the OpenAI shape when it is there, a bare
// `{message}` or a string otherwise, and never trust any of it to be present.
function readErrorBody(body: unknown): ErrorBodyFields {
  const fields: ErrorBodyFields = { message: undefined, code: undefined, type: undefined };
  if (typeof body === 'string') {
    fields.message = body.slice(0, 500);
    return fields;
  }
  if (typeof body !== 'object' || body === null) return fields;
  const record = body as Record<string, unknown>;
  const inner =
    typeof record.error === 'object' && record.error !== null
      ? (record.error as Record<string, unknown>)
      : record;
  if (typeof inner.message === 'string') fields.message = inner.message.slice(0, 500);
  else if (typeof record.error === 'string') fields.message = record.error.slice(0, 500);
  if (typeof inner.code === 'string' || typeof inner.code === 'number') fields.code = String(inner.code);
  if (typeof inner.type === 'string') fields.type = inner.type;
  return fields;
}

function readRetryAfterMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = headers?.get('retry-after');
  if (!retryAfter) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}
