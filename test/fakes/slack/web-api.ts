import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentSessionMethods } from './agent-sessions.ts';
import { agentViewMethods } from './agent-view.ts';
import { type ApiArguments, parseApiRequest, stringArgument } from './api-arguments.ts';
import { chatMethods } from './chat-methods.ts';
import { conversationMethods } from './conversation-methods.ts';
import type { ApiCall, ApiMethod, FakeSlackState } from './fake-slack-state.ts';
import { fileMethods } from './file-methods.ts';
import { readBodyBytes, sendJson } from './http-io.ts';
import { mentionsInArguments } from './mention-scanner.ts';
import { streamMethods } from './native-streams.ts';
import {
  checkInstalledToken,
  installedAuthTest,
  installedTeamsList,
  oauthV2Access,
} from './oauth-installs.ts';
import { SlackApiError } from './slack-api-error.ts';
import { workspaceMethods } from './workspace-methods.ts';

const methods: Record<string, ApiMethod> = {
  ...chatMethods,
  ...streamMethods,
  ...conversationMethods,
  ...fileMethods,
  ...workspaceMethods,
  ...agentViewMethods,
  ...agentSessionMethods,
};

// Socket Mode's URL is the one thing an app-level token (xapp-…) may ask for.
const appTokenMethods = new Set(['apps.connections.open']);

/**
 * `POST /api/<method>`: parses, checks the token, applies forced failures and rate limits, runs the
 * method and records the call. Answers HTTP 200 with `ok: true|false`, or 429 with `Retry-After`.
 */
export async function handleWebApiCall(
  state: FakeSlackState,
  request: IncomingMessage,
  response: ServerResponse,
  method: string,
): Promise<void> {
  const receivedAtMs = Date.now();
  const body = await readBodyBytes(request);
  let args: ApiArguments = {};
  let token: string | undefined;
  let status = 200;
  let result: Record<string, unknown>;
  const headers: Record<string, string> = {};
  try {
    const parsed = await parseApiRequest({ url: request.url ?? '', headers: request.headers, body });
    args = parsed.arguments;
    token = parsed.token;
    // oauth.v2.access is authenticated by the app's client id and secret, not by a token.
    const isInstallation =
      method !== 'oauth.v2.access' && token !== undefined && state.oauth.tokens.has(token);
    const issued =
      isInstallation && token !== undefined ? checkInstalledToken(state.oauth, token, args) : undefined;
    if (method !== 'oauth.v2.access' && issued === undefined) assertTokenAllowed(state, method, token);
    const run: ApiMethod | undefined =
      method === 'oauth.v2.access'
        ? (_state, methodArgs) => oauthV2Access(state.oauth, methodArgs, request.headers.authorization)
        : method === 'auth.test' && issued !== undefined
          ? () => installedAuthTest(state.oauth, issued)
          : method === 'auth.teams.list' && issued?.isEnterpriseInstall === true
            ? () => installedTeamsList(state.oauth, issued)
            : methods[method];
    if (run === undefined) {
      throw new SlackApiError('unknown_method', { req_method: method });
    }
    takeForcedFailure(state, method);
    const limited = state.rateLimiter.admit(
      method,
      stringArgument(args, 'channel') ?? stringArgument(args, 'channel_id'),
      // An installed token's calls count in its own workspace's (or org's) buckets.
      issued === undefined ? undefined : (issued.teamId ?? issued.enterpriseId),
    );
    if (limited !== undefined) {
      status = 429;
      headers['retry-after'] = String(limited.retryAfterSec);
      result = { ok: false, error: 'ratelimited' };
    } else {
      state.caller = issued;
      try {
        result = { ok: true, ...run(state, args) };
      } finally {
        state.caller = undefined;
      }
      recordMentions(state, method, args);
    }
  } catch (error) {
    if (!(error instanceof SlackApiError)) {
      throw error;
    }
    result = error.toBody();
  }
  const call: ApiCall = { method, arguments: args, token, status, result, receivedAtMs };
  state.calls.push(call);
  sendJson(response, status, result, headers);
  state.onCall?.(call);
  state.notifyChange();
}

// Methods whose text Slack shows in a channel. Streams are scanned as a whole message, in
// native-streams.ts, since a mention can be split across two appends.
const postingMethods = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'files.completeUploadExternal',
]);

function recordMentions(state: FakeSlackState, method: string, args: ApiArguments): void {
  if (!postingMethods.has(method)) return;
  const channel = stringArgument(args, 'channel') ?? stringArgument(args, 'channel_id');
  for (const mention of mentionsInArguments(args)) {
    state.mentions.push({ ...mention, source: method, channel });
  }
}

/**
 * The Web API's token checks ("Web API basics" and each method's "Errors"): `not_authed` without a
 * token, `invalid_auth` for an unknown one, `not_allowed_token_type` when an app-level token (xapp-)
 * calls anything but apps.connections.open, or a bot token calls that.
 */
function assertTokenAllowed(state: FakeSlackState, method: string, token: string | undefined): void {
  if (token === undefined) {
    throw new SlackApiError('not_authed');
  }
  const isAppToken = token === state.appToken;
  if (!isAppToken && token !== state.botToken) {
    throw new SlackApiError('invalid_auth');
  }
  if (isAppToken !== appTokenMethods.has(method)) {
    throw new SlackApiError('not_allowed_token_type');
  }
}

function takeForcedFailure(state: FakeSlackState, method: string): void {
  const failure = state.forcedFailures.get(method);
  if (failure === undefined) {
    return;
  }
  failure.remaining -= 1;
  if (failure.remaining <= 0) {
    state.forcedFailures.delete(method);
  }
  throw new SlackApiError(failure.error);
}
