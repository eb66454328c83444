/** One field error inside Discord's nested `errors` object. */
export interface FieldError {
  code: string;
  message: string;
}

/** A field path such as `['embeds', 0, 'description']` with what is wrong there. */
export interface FieldProblem {
  path: readonly (string | number)[];
  error: FieldError;
}

/** The JSON body of a Discord API error, the shape discord.js turns into a `DiscordAPIError`. */
export interface DiscordErrorBody {
  message: string;
  code: number;
  errors?: Record<string, unknown>;
}

/** A request the fake refuses; the REST handler turns it into Discord's error response. */
export class DiscordApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly problems: readonly FieldProblem[];
  /** Response headers of its own, e.g. `Retry-After` on a 429 a route decides itself. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(options: {
    status: number;
    code: number;
    message: string;
    problems?: readonly FieldProblem[];
    headers?: Readonly<Record<string, string>>;
  }) {
    super(options.message);
    this.name = 'DiscordApiError';
    this.status = options.status;
    this.code = options.code;
    this.problems = options.problems ?? [];
    this.headers = options.headers ?? {};
  }

  toBody(): DiscordErrorBody | Record<string, unknown> {
    if (this.problems.length === 0) {
      return { message: this.message, code: this.code };
    }
    return { message: this.message, code: this.code, errors: nestProblems(this.problems) };
  }
}

/**
 * Discord nests field errors by path with the list under `_errors`:
 * `{ embeds: { 0: { description: { _errors: [{ code, message }] } } } }`.
 */
function nestProblems(problems: readonly FieldProblem[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const problem of problems) {
    let node = root;
    for (const key of problem.path) {
      const child = (node[String(key)] ?? {}) as Record<string, unknown>;
      node[String(key)] = child;
      node = child;
    }
    const list = (node._errors ?? []) as FieldError[];
    list.push(problem.error);
    node._errors = list;
  }
  return root;
}

/** 400 "Invalid Form Body" (code 50035), what Discord answers for a payload over a limit. */
export function invalidFormBody(problems: readonly FieldProblem[]): DiscordApiError {
  return new DiscordApiError({ status: 400, code: 50035, message: 'Invalid Form Body', problems });
}

/** 404 with one of Discord's "Unknown ..." codes, e.g. `unknown('Channel', 10003)`. */
export function unknownEntity(entity: string, code: number): DiscordApiError {
  return new DiscordApiError({ status: 404, code, message: `Unknown ${entity}` });
}

/** Discord's JSON error codes that the fake uses, by name. */
export const errorCodes = {
  unknownChannel: 10003,
  unknownGuild: 10004,
  unknownMember: 10007,
  unknownMessage: 10008,
  unknownUser: 10013,
  unknownWebhook: 10015,
  unknownInteraction: 10062,
  unauthorized: 0,
  cannotSendEmptyMessage: 50006,
  cannotEditOtherUsersMessage: 50005,
  missingPermissions: 50013,
  missingAccess: 50001,
  requestEntityTooLarge: 40005,
  interactionAlreadyAcknowledged: 40060,
  invalidFormBody: 50035,
  invalidChannelType: 50024,
  threadAlreadyCreated: 160004,
  unknownTag: 10087,
  cannotSendInForumChannel: 40058,
  tagRequired: 40067,
} as const;
