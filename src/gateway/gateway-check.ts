/**
 * One cheap request to the gateway at start-up, so that a wrong address or key is named at once,
 * with the host, instead of every message getting "the model service cannot be reached". The
 * request is a chat completion with no messages: a gateway answers it 400 after checking the key and
 * the path, without running (or billing) a model.
 */
export interface GatewayCheckOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  /** The longest the check may take; start-up goes on with a warning after it. */
  readonly timeoutMs: number;
  readonly fetch?: typeof globalThis.fetch;
}

/** `fatal`: the setting is wrong and will stay wrong, so parley stops. `warning`: it may pass. */
export type GatewayCheck =
  | { readonly kind: 'ok' }
  | { readonly kind: 'fatal' | 'warning'; readonly message: string };

/**
 * Hosts that can never be a real gateway (RFC 2606 and RFC 6761): the `.example`, `.test` and
 * `.invalid` top-level names and the example.com/net/org domains. `.env.example` ships with one.
 */
export function isReservedExampleHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return /(^|\.)(example|test|invalid)$/.test(name) || /(^|\.)example\.(com|net|org)$/.test(name);
}

const tlsErrorCodes =
  /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET)_)/;

export async function checkGateway({
  baseUrl,
  apiKey,
  model,
  timeoutMs,
  fetch = globalThis.fetch,
}: GatewayCheckOptions): Promise<GatewayCheck> {
  const base = new URL(baseUrl);
  const where = `GATEWAY_BASE_URL ${baseUrl}`;
  if (isReservedExampleHost(base.hostname)) {
    return {
      kind: 'fatal',
      message: `${where}: ${base.hostname} is a reserved example name, not a gateway. Set GATEWAY_BASE_URL to your gateway's base URL (or run npm run fake-gateway to try parley without one).`,
    };
  }
  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Only the status matters; the body is let go.
    await response.body?.cancel();
  } catch (error) {
    return describeFailure({ error, where, host: base.host, timeoutMs });
  }
  if (response.status === 401 || response.status === 403) {
    return {
      kind: 'fatal',
      message: `${where}: ${base.host} refused GATEWAY_API_KEY (${response.status}). Copy the key again from the gateway console.`,
    };
  }
  if (response.status === 404) {
    return {
      kind: 'fatal',
      message: `${where}: POST ${url} answered 404. Set GATEWAY_BASE_URL to the base URL ending in the API version, such as https://host/api/v1.`,
    };
  }
  if (response.status >= 500 || response.status === 429) {
    return {
      kind: 'warning',
      message: `${where}: ${base.host} answered ${response.status} to a test request; replies may fail until it recovers.`,
    };
  }
  return { kind: 'ok' };
}

function describeFailure({
  error,
  where,
  host,
  timeoutMs,
}: {
  error: unknown;
  where: string;
  host: string;
  timeoutMs: number;
}): GatewayCheck {
  if ((error as Error).name === 'TimeoutError') {
    return {
      kind: 'warning',
      message: `${where}: ${host} did not answer within ${timeoutMs / 1000} s; replies may fail until it does.`,
    };
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME') {
    return {
      kind: 'fatal',
      message: `${where}: the host name ${host} was not found (DNS). Check GATEWAY_BASE_URL.`,
    };
  }
  if (code === 'EAI_AGAIN') {
    return {
      kind: 'warning',
      message: `${where}: the host name ${host} could not be looked up just now (DNS); replies will fail until it can.`,
    };
  }
  if (tlsErrorCodes.test(code)) {
    return {
      kind: 'fatal',
      message: `${where}: the TLS connection to ${host} failed (${code}${cause?.message ? `: ${cause.message}` : ''}).`,
    };
  }
  if (code === 'ECONNREFUSED') {
    return {
      kind: 'warning',
      message: `${where}: ${host} refused the connection (nothing listens there); replies will fail until the gateway runs.`,
    };
  }
  return {
    kind: 'warning',
    message: `${where}: ${host} could not be reached (${code || (cause?.message ?? (error as Error).message)}); replies will fail until it can.`,
  };
}
