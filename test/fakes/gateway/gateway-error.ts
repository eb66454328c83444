/** The OpenAI-style error body, the shape the `openai` SDK reads `message`, `type` and `code` from. */
export interface OpenAiErrorBody {
  error: {
    message: string;
    type: string;
    code: string | null;
    param: string | null;
  };
}

/** A request the fake refuses; the server turns it into an OpenAI-style error response. */
export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;

  constructor(options: { status: number; message: string; type: string; code?: string; param?: string }) {
    super(options.message);
    this.name = 'GatewayError';
    this.status = options.status;
    this.type = options.type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
  }

  toBody(): OpenAiErrorBody {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

/** A 400 for a request that breaks a rule of the reference. */
export function invalidRequest(
  message: string,
  options: { code?: string; param?: string } = {},
): GatewayError {
  return new GatewayError({ status: 400, message, type: 'invalid_request_error', ...options });
}

/**
 * The body sent for a forced error that names no body: what an OpenAI-compatible gateway typically
 * answers for that status, so a client's status and code handling is exercised.
 */
export function defaultErrorBody(status: number): OpenAiErrorBody {
  const [type, code, message] = describeStatus(status);
  return new GatewayError({ status, message, type, code }).toBody();
}

function describeStatus(status: number): [type: string, code: string, message: string] {
  switch (status) {
    case 400:
      return ['invalid_request_error', 'invalid_request', 'The request is invalid.'];
    case 401:
      return ['invalid_request_error', 'invalid_api_key', 'Incorrect API key provided.'];
    case 402:
      return ['insufficient_quota', 'insufficient_quota', 'Your balance is too low for this request.'];
    case 403:
      return ['permission_error', 'forbidden', 'This key may not use this model.'];
    case 404:
      return ['invalid_request_error', 'model_not_found', 'The model does not exist.'];
    case 422:
      return ['invalid_request_error', 'unsupported_parameter', 'A parameter is not supported.'];
    case 429:
      return ['rate_limit_error', 'rate_limit_exceeded', 'Rate limit reached. Please try again later.'];
    default:
      return status >= 500
        ? ['server_error', 'server_error', 'The server had an error while processing your request.']
        : ['api_error', 'error', `Request failed with status ${status}.`];
  }
}
