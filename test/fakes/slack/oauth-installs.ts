import { randomBytes } from 'node:crypto';
import { type ApiArguments, stringArgument } from './api-arguments.ts';
import { SlackApiError } from './slack-api-error.ts';
import { randomSlackId } from './slack-ids.ts';

/**
 * The fake's side of distributing an app to many workspaces: the OAuth v2 install
 * (docs.slack.dev/authentication/installing-with-oauth), `oauth.v2.access`
 * (docs.slack.dev/reference/methods/oauth.v2.access), token rotation
 * (docs.slack.dev/authentication/using-token-rotation) and what an uninstall does to tokens
 * (docs.slack.dev/reference/events/app_uninstalled, docs.slack.dev/reference/events/tokens_revoked).
 */

/** A workspace other than the fake's default one, where the app can be installed. */
export interface InstallableWorkspace {
  teamId: string;
  teamName: string;
  domain: string;
  /** The Enterprise Grid org it belongs to. */
  enterpriseId?: string;
  /** The app's bot user in this workspace (each installation has its own, as `bot_user_id`). */
  botUserId: string;
  botId: string;
  /** The channels of this workspace: a token of another workspace gets `channel_not_found` there. */
  channels: string[];
}

/** An Enterprise Grid org: an org-wide install covers all its workspaces. */
export interface EnterpriseOrg {
  enterpriseId: string;
  name: string;
  domain: string;
  botUserId: string;
  botId: string;
}

/** Who a token was issued to. */
interface IssuedToken {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  botUserId: string;
  botId: string;
  scopes: string[];
  /** With token rotation: when it stops working (Slack: 12 hours after it was issued). */
  expiresAtMs: number | undefined;
  isRevoked: boolean;
}

interface Grant {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  scopes: string[];
  installerUserId: string;
  redirectUri: string | undefined;
  isUsed: boolean;
}

export interface OAuthState {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly workspaces: Map<string, InstallableWorkspace>;
  readonly enterprises: Map<string, EnterpriseOrg>;
  readonly codes: Map<string, Grant>;
  readonly tokens: Map<string, IssuedToken>;
  /** Each refresh token works once ("the refresh token is then revoked", using-token-rotation). */
  readonly refreshTokens: Map<string, { token: IssuedToken; isSpent: boolean }>;
  /** The app has "token rotation" turned on (OAuth & Permissions → Advanced token security). */
  isTokenRotationEnabled: boolean;
  /** `expires_in` of a rotating token; Slack's is 12 hours ("it expires every 12 hours"). */
  tokenLifetimeSec: number;
  /** How many times `oauth.v2.access` refreshed a token. */
  refreshCount: number;
}

export function createOAuthState(options: {
  clientId?: string;
  clientSecret?: string;
  isTokenRotationEnabled?: boolean;
}): OAuthState {
  return {
    clientId: options.clientId ?? '1111111111.2222222222',
    clientSecret: options.clientSecret ?? 'fake-client-secret-0123456789abcdef',
    workspaces: new Map(),
    enterprises: new Map(),
    codes: new Map(),
    tokens: new Map(),
    refreshTokens: new Map(),
    isTokenRotationEnabled: options.isTokenRotationEnabled ?? false,
    tokenLifetimeSec: 12 * 60 * 60,
    refreshCount: 0,
  };
}

/**
 * A person approved the install on Slack's authorize page (`https://slack.com/oauth/v2/authorize`
 * with `client_id`, `scope`, `state`, and `redirect_uri` when given): Slack sends them back to the
 * redirect URL with `code` and the same `state`. Returns the query the redirect carries. The person
 * may grant fewer scopes than asked (`scopes`), as an admin's approval rules can make Slack do.
 */
export function approveInstall(
  state: OAuthState,
  {
    authorizeUrl,
    teamId,
    enterpriseId,
    scopes,
    installerUserId = 'U0INSTALL1',
  }: {
    authorizeUrl: string;
    teamId?: string;
    /** An org-wide install of this Enterprise Grid org (`is_enterprise_install`). */
    enterpriseId?: string;
    scopes?: string[];
    installerUserId?: string;
  },
): { code: string; state: string } {
  const url = new URL(authorizeUrl);
  if (url.searchParams.get('client_id') !== state.clientId) {
    throw new Error(`fake slack: the authorize URL names client_id ${url.searchParams.get('client_id')}`);
  }
  const asked = (url.searchParams.get('scope') ?? '').split(',').filter((scope) => scope !== '');
  const isEnterpriseInstall = enterpriseId !== undefined && teamId === undefined;
  if (teamId !== undefined && !state.workspaces.has(teamId))
    throw new Error(`fake slack: no workspace ${teamId}`);
  if (isEnterpriseInstall && !state.enterprises.has(enterpriseId)) {
    throw new Error(`fake slack: no org ${enterpriseId}`);
  }
  const code = `${Date.now()}.${randomBytes(12).toString('hex')}`;
  state.codes.set(code, {
    teamId,
    enterpriseId:
      enterpriseId ?? (teamId === undefined ? undefined : state.workspaces.get(teamId)?.enterpriseId),
    isEnterpriseInstall,
    scopes: scopes ?? asked,
    installerUserId,
    redirectUri: url.searchParams.get('redirect_uri') ?? undefined,
    isUsed: false,
  });
  return { code, state: url.searchParams.get('state') ?? '' };
}

/**
 * `oauth.v2.access` (docs.slack.dev/reference/methods/oauth.v2.access): authenticated by
 * `client_id` and `client_secret` (arguments or HTTP Basic), no token. With `code`: exchanges the code
 * of an approved install, once ("invalid_code"), and with the same `redirect_uri` when the authorize
 * step had one ("bad_redirect_uri"). With `grant_type=refresh_token`: a new access token and a new
 * refresh token; the used refresh token is spent ("invalid_refresh_token" on reuse).
 */
export function oauthV2Access(
  state: OAuthState,
  args: ApiArguments,
  basicAuthorization: string | undefined,
): Record<string, unknown> {
  const basic = basicCredentialsOf(basicAuthorization);
  const clientId = stringArgument(args, 'client_id') ?? basic?.clientId;
  const clientSecret = stringArgument(args, 'client_secret') ?? basic?.clientSecret;
  if (clientId !== state.clientId) throw new SlackApiError('invalid_client_id');
  if (clientSecret !== state.clientSecret) throw new SlackApiError('bad_client_secret');
  if (stringArgument(args, 'grant_type') === 'refresh_token') return refresh(state, args);
  const code = stringArgument(args, 'code');
  const grant = code === undefined ? undefined : state.codes.get(code);
  if (grant === undefined || grant.isUsed) throw new SlackApiError('invalid_code');
  if (grant.redirectUri !== undefined && stringArgument(args, 'redirect_uri') !== grant.redirectUri) {
    throw new SlackApiError('bad_redirect_uri');
  }
  grant.isUsed = true;
  const owner = grant.isEnterpriseInstall
    ? state.enterprises.get(grant.enterpriseId ?? '')
    : state.workspaces.get(grant.teamId ?? '');
  if (owner === undefined) throw new SlackApiError('invalid_code');
  const issued = issueToken(state, {
    teamId: grant.isEnterpriseInstall ? undefined : grant.teamId,
    enterpriseId: grant.enterpriseId,
    isEnterpriseInstall: grant.isEnterpriseInstall,
    botUserId: owner.botUserId,
    botId: owner.botId,
    scopes: grant.scopes,
  });
  const team = grant.isEnterpriseInstall ? undefined : state.workspaces.get(grant.teamId ?? '');
  const enterprise = grant.enterpriseId === undefined ? undefined : state.enterprises.get(grant.enterpriseId);
  return {
    access_token: issued.accessToken,
    token_type: 'bot',
    scope: grant.scopes.join(','),
    bot_user_id: owner.botUserId,
    app_id: 'A0FAKEAPP1',
    // An org-wide install has `team: null` and the org under `enterprise` (oauth.v2.access "Response").
    team: team === undefined ? null : { id: team.teamId, name: team.teamName },
    enterprise: enterprise === undefined ? null : { id: enterprise.enterpriseId, name: enterprise.name },
    is_enterprise_install: grant.isEnterpriseInstall,
    authed_user: { id: grant.installerUserId },
    ...(issued.refreshToken === undefined
      ? {}
      : { refresh_token: issued.refreshToken, expires_in: state.tokenLifetimeSec }),
  };
}

function refresh(state: OAuthState, args: ApiArguments): Record<string, unknown> {
  const given = stringArgument(args, 'refresh_token');
  const entry = given === undefined ? undefined : state.refreshTokens.get(given);
  if (entry === undefined || entry.isSpent || entry.token.isRevoked) {
    throw new SlackApiError('invalid_refresh_token');
  }
  entry.isSpent = true;
  state.refreshCount += 1;
  const { accessToken, refreshToken } = issueToken(state, { ...entry.token, forceRotation: true });
  return {
    access_token: accessToken,
    token_type: 'bot',
    scope: entry.token.scopes.join(','),
    refresh_token: refreshToken,
    expires_in: state.tokenLifetimeSec,
    team: entry.token.teamId === undefined ? null : { id: entry.token.teamId },
    enterprise: entry.token.enterpriseId === undefined ? null : { id: entry.token.enterpriseId },
    is_enterprise_install: entry.token.isEnterpriseInstall,
  };
}

function issueToken(
  state: OAuthState,
  owner: Omit<IssuedToken, 'expiresAtMs' | 'isRevoked'> & { forceRotation?: boolean },
): { accessToken: string; refreshToken: string | undefined } {
  const isRotating = state.isTokenRotationEnabled || owner.forceRotation === true;
  const secret = randomBytes(16).toString('hex');
  const place = owner.teamId ?? owner.enterpriseId ?? 'T0';
  // Rotating tokens start with xoxe.xoxb-1- and their refresh tokens with xoxe-1- (using-token-rotation).
  const accessToken = isRotating ? `xoxe.xoxb-1-${place}-${secret}` : `xoxb-${place}-${secret}`;
  const issued: IssuedToken = {
    teamId: owner.teamId,
    enterpriseId: owner.enterpriseId,
    isEnterpriseInstall: owner.isEnterpriseInstall,
    botUserId: owner.botUserId,
    botId: owner.botId,
    scopes: owner.scopes,
    expiresAtMs: isRotating ? Date.now() + state.tokenLifetimeSec * 1000 : undefined,
    isRevoked: false,
  };
  state.tokens.set(accessToken, issued);
  if (!isRotating) return { accessToken, refreshToken: undefined };
  const refreshToken = `xoxe-1-${randomBytes(24).toString('hex')}`;
  state.refreshTokens.set(refreshToken, { token: issued, isSpent: false });
  return { accessToken, refreshToken };
}

/**
 * The checks of a token issued by an install, before any method runs: a revoked one answers
 * `token_revoked`, an expired rotating one `token_expired` ("Web API basics" errors), and a channel of
 * another workspace `channel_not_found`, since an installation sees only its own workspace (or, org-wide,
 * its org's workspaces). Undefined when the token was not issued by an install.
 */
export function checkInstalledToken(
  state: OAuthState,
  token: string,
  args: ApiArguments,
): IssuedToken | undefined {
  const issued = state.tokens.get(token);
  if (issued === undefined) return undefined;
  if (issued.isRevoked) throw new SlackApiError('token_revoked');
  if (issued.expiresAtMs !== undefined && Date.now() >= issued.expiresAtMs)
    throw new SlackApiError('token_expired');
  const channel = stringArgument(args, 'channel') ?? stringArgument(args, 'channel_id');
  if (channel !== undefined) {
    const owner = [...state.workspaces.values()].find((workspace) => workspace.channels.includes(channel));
    const isVisible =
      owner === undefined ||
      (issued.isEnterpriseInstall
        ? owner.enterpriseId === issued.enterpriseId
        : owner.teamId === issued.teamId);
    if (!isVisible) throw new SlackApiError('channel_not_found');
  }
  return issued;
}

/**
 * `auth.test` with an installation's token (docs.slack.dev/reference/methods/auth.test): the bot user
 * and the workspace of that installation, or its org for an org-wide install.
 */
export function installedAuthTest(state: OAuthState, issued: IssuedToken): Record<string, unknown> {
  if (issued.isEnterpriseInstall) {
    const org = state.enterprises.get(issued.enterpriseId ?? '');
    return {
      url: `https://${org?.domain ?? 'org'}.enterprise.slack.com/`,
      team: org?.name,
      user: 'parley',
      user_id: issued.botUserId,
      bot_id: issued.botId,
      enterprise_id: issued.enterpriseId,
      is_enterprise_install: true,
    };
  }
  const workspace = state.workspaces.get(issued.teamId ?? '');
  return {
    url: `https://${workspace?.domain ?? 'workspace'}.slack.com/`,
    team: workspace?.teamName,
    user: 'parley',
    team_id: issued.teamId,
    user_id: issued.botUserId,
    bot_id: issued.botId,
    ...(issued.enterpriseId === undefined ? {} : { enterprise_id: issued.enterpriseId }),
    is_enterprise_install: false,
  };
}

/**
 * `auth.teams.list` with an org-wide installation's token (docs.slack.dev/reference/methods/
 * auth.teams.list): "a full list of workspaces your org-wide app has been approved for", as
 * `teams: [{ id, name }]`; every workspace of the org here, on one page (`next_cursor` empty).
 */
export function installedTeamsList(state: OAuthState, issued: IssuedToken): Record<string, unknown> {
  const teams = [...state.workspaces.entries()]
    .filter(([, workspace]) => issued.isEnterpriseInstall && workspace.enterpriseId === issued.enterpriseId)
    .map(([id, workspace]) => ({ id, name: workspace.teamName ?? id }));
  return { teams, response_metadata: { next_cursor: '' } };
}

/** Uninstalling revokes every token of the installation ("an app is not uninstalled until its … tokens are revoked"). */
export function revokeInstallation(
  state: OAuthState,
  owner: { teamId?: string; enterpriseId?: string },
): void {
  for (const issued of state.tokens.values()) {
    const isOwners =
      owner.teamId !== undefined
        ? issued.teamId === owner.teamId && !issued.isEnterpriseInstall
        : issued.isEnterpriseInstall && issued.enterpriseId === owner.enterpriseId;
    if (isOwners) issued.isRevoked = true;
  }
}

/** A new workspace's ids, the way Slack's look. */
export function newWorkspace(options: {
  teamId: string;
  teamName?: string;
  enterpriseId?: string;
  channels?: string[];
}): InstallableWorkspace {
  return {
    teamId: options.teamId,
    teamName: options.teamName ?? `Workspace ${options.teamId}`,
    domain: options.teamId.toLowerCase(),
    ...(options.enterpriseId === undefined ? {} : { enterpriseId: options.enterpriseId }),
    botUserId: randomSlackId('U'),
    botId: randomSlackId('B'),
    channels: options.channels ?? [],
  };
}

function basicCredentialsOf(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const [clientId, clientSecret] = Buffer.from(encoded, 'base64').toString('utf8').split(':');
  return clientId === undefined || clientSecret === undefined ? undefined : { clientId, clientSecret };
}
