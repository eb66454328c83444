import { webApi } from '@slack/bolt';
import { slackErrorCodeOf } from './slack-errors.ts';

/** Who the bot token says the bot is, and in which workspace (`auth.test`). */
export interface SlackIdentity {
  readonly teamId: string | undefined;
  readonly teamName: string | undefined;
  /** E.g. `https://acme.slack.com/`. */
  readonly workspaceUrl: string | undefined;
  readonly botUserId: string;
  readonly botId: string;
  readonly botName: string | undefined;
}

/** The variables a start-up failure can be traced to. */
type SlackVariable = 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN';

/** Where each token comes from, for the sentence that says it was refused. */
const tokenHints: Record<SlackVariable, string> = {
  SLACK_BOT_TOKEN:
    'Copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions of your app at https://api.slack.com/apps, after installing the app to the workspace.',
  SLACK_APP_TOKEN:
    'Create an App-Level Token (xapp-…) with the connections:write scope under Basic Information → App-Level Tokens, or leave SLACK_APP_TOKEN unset for HTTP mode.',
};

/** Web API errors that mean the token itself is no good (auth.test, apps.connections.open "Errors"). */
const rejectedTokenErrors = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'user_removed_from_team',
  'team_disabled',
]);

/** Checks the bot token with `auth.test` and says who and where the bot is. */
export async function identifyBot({
  token,
  clientOptions,
}: {
  token: string;
  clientOptions: webApi.WebClientOptions & { slackApiUrl: string };
}): Promise<SlackIdentity> {
  let result: webApi.AuthTestResponse;
  try {
    result = await new webApi.WebClient(token, clientOptions).auth.test();
  } catch (error) {
    throw startupErrorOf({ error, variable: 'SLACK_BOT_TOKEN', apiUrl: clientOptions.slackApiUrl });
  }
  if (typeof result.user_id !== 'string' || typeof result.bot_id !== 'string') {
    throw new Error(`Slack: SLACK_BOT_TOKEN names no bot user. ${tokenHints.SLACK_BOT_TOKEN}`);
  }
  return {
    teamId: result.team_id,
    teamName: result.team,
    workspaceUrl: result.url,
    botUserId: result.user_id,
    botId: result.bot_id,
    botName: result.user,
  };
}

/**
 * A start-up failure as one sentence that names the platform and what to fix: the token variable
 * Slack refused, the API address it could not reach, or the port it could not listen on. Anything
 * else comes back unchanged.
 */
export function startupErrorOf({
  error,
  variable,
  apiUrl,
  port,
}: {
  error: unknown;
  variable: SlackVariable;
  apiUrl: string;
  port?: number;
}): unknown {
  const code = slackErrorCodeOf(error);
  if (code !== undefined && rejectedTokenErrors.has(code)) {
    return new Error(`Slack: ${variable} was rejected by Slack (${code}). ${tokenHints[variable]}`, {
      cause: error,
    });
  }
  if (code === 'not_allowed_token_type') {
    return new Error(`Slack: ${variable} is the wrong kind of token (${code}). ${tokenHints[variable]}`, {
      cause: error,
    });
  }
  if (code !== undefined) {
    return new Error(`Slack: Slack refused ${variable} (${code}).`, { cause: error });
  }
  const systemCode = (error as { code?: unknown } | undefined)?.code;
  if (systemCode === 'slack_webapi_request_error' || systemCode === 'slack_webapi_http_error') {
    const detail = error instanceof Error ? error.message : String(error);
    return new Error(`Slack: could not reach the Web API at ${apiUrl} (SLACK_API_URL): ${detail}`, {
      cause: error,
    });
  }
  if (systemCode === 'EADDRINUSE' || systemCode === 'EACCES') {
    const reason = systemCode === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
    return new Error(
      `Slack: PORT ${port ?? ''} ${reason}; HTTP mode listens there for Slack's requests. Set PORT to a free port, or set SLACK_APP_TOKEN to use Socket Mode.`,
      { cause: error },
    );
  }
  return error;
}
