import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { webApi } from '@slack/bolt';
import {
  type CallbackOptions,
  ClearStateStore,
  type Installation,
  InvalidStateError,
  type StateStore,
} from '@slack/oauth';
import type { AuditLog } from '../../src/audit/audit-log.ts';
import type { Logger } from '../../src/log.ts';
import type { Deduper } from '../../src/state/dedupe.ts';
import { botScopes } from './app-manifest.ts';
import type { RefreshedToken } from './sealed-installation-store.ts';
import { slackErrorCodeOf } from './slack-errors.ts';

/** Where a person starts an install, and where Slack sends them back (Bolt's defaults). */
export const installPath = '/slack/install';
export const defaultRedirectPath = '/slack/oauth_redirect';

/** How long an install may take between the install page and Slack's redirect (ClearStateStore's default). */
const stateLifetimeSec = 10 * 60;

/** The bot scopes every install must grant: those the manifest asks for (app-manifest.ts). */
export const requiredBotScopes: readonly string[] = Object.keys(botScopes).sort();

/**
 * Bolt's signed state (ClearStateStore: a JWT signed with SLACK_STATE_SECRET, ten minutes), taken
 * once: a state that comes back a second time is refused, so a captured redirect cannot install
 * again. The sighting is kept in the shared dedupe, so a replay to another process fails too.
 */
export function createOneUseStateStore({
  stateSecret,
  deduper,
}: {
  stateSecret: string;
  deduper: Deduper;
}): StateStore {
  const signed = new ClearStateStore(stateSecret, stateLifetimeSec);
  return {
    generateStateParam: (installOptions, now) => signed.generateStateParam(installOptions, now),
    async verifyStateParam(now, state) {
      const installOptions = await signed.verifyStateParam(now, state);
      const stateId = createHash('sha256').update(state).digest('hex');
      if (!(await deduper.isFirstSighting(`slack-oauth-state:${stateId}`, stateLifetimeSec * 1000))) {
        throw new InvalidStateError('The state parameter was used before (a replayed install).');
      }
      return installOptions;
    },
  };
}

/**
 * What happens when Slack sends the installer back: scopes checked before anything is stored (an
 * install without one parley needs stores nothing and says which), a page saying how it went, the
 * details in the log and the install in the audit trail. No page or log line carries a token.
 */
export function createInstallCallbacks({
  logger,
  audit,
}: {
  logger: Logger;
  audit: AuditLog;
}): CallbackOptions {
  return {
    async afterInstallation(installation, _options, _request, response) {
      const granted = new Set(installation.bot?.scopes ?? []);
      const missing = requiredBotScopes.filter((scope) => !granted.has(scope));
      if (installation.bot === undefined || missing.length > 0) {
        logger.warn(
          {
            teamId: installation.team?.id,
            enterpriseId: installation.enterprise?.id,
            missingScopes: missing,
          },
          'slack: an install was refused: Slack granted it without scopes parley needs; nothing was stored',
        );
        await recordInstall({
          audit,
          installation,
          result: 'refused',
          what: `install refused: missing ${missing.join(', ')}`,
        });
        sendPage(response, 400, {
          title: 'parley was not installed',
          body: `Slack granted parley without the permissions it needs (${missing.join(', ') || 'a bot user'}). Nothing was stored. Install it again and allow every permission it asks for.`,
        });
        return false;
      }
      return true;
    },
    async successAsync(installation, _options, _request, response) {
      const place = placeNameOf(installation);
      logger.info(
        {
          teamId: installation.team?.id,
          enterpriseId: installation.enterprise?.id,
          isEnterpriseInstall: installation.isEnterpriseInstall === true,
          tokenRotation: installation.bot?.refreshToken !== undefined,
        },
        `slack: parley was installed in ${place}`,
      );
      await recordInstall({ audit, installation, result: 'done', what: `installed parley in ${place}` });
      sendPage(response, 200, {
        title: 'parley is installed',
        body: `parley is installed in ${place}. Mention @parley in a channel or send it a direct message.`,
      });
    },
    failure(error, _options, _request, response) {
      const code = slackErrorCodeOf(error) ?? (error as { code?: unknown }).code;
      logger.warn({ err: error, code }, 'slack: an install failed');
      const isStateProblem =
        code === 'slack_oauth_invalid_state' ||
        code === 'slack_oauth_missing_state' ||
        error instanceof InvalidStateError;
      sendPage(response, isStateProblem ? 400 : 502, {
        title: 'parley was not installed',
        body: isStateProblem
          ? 'This install link has expired or was used already. Start again from the install page.'
          : 'Slack did not complete the install. Nothing was stored; start again from the install page.',
      });
    },
  };
}

async function recordInstall({
  audit,
  installation,
  result,
  what,
}: {
  audit: AuditLog;
  installation: Installation;
  result: 'done' | 'refused';
  what: string;
}): Promise<void> {
  const installer = installation.user?.id ?? 'unknown';
  await audit.record({
    platform: 'slack',
    workspace: installation.team?.id ?? installation.enterprise?.id ?? 'unknown',
    actor: { id: installer, name: installer },
    kind: 'installation',
    what,
    result,
    details: {
      ...(installation.enterprise?.id ? { enterpriseId: installation.enterprise.id } : {}),
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
    },
  });
}

function placeNameOf(installation: Installation): string {
  if (installation.isEnterpriseInstall === true) {
    return `the organization ${installation.enterprise?.name ?? installation.enterprise?.id ?? ''}`.trim();
  }
  return `the workspace ${installation.team?.name ?? installation.team?.id ?? ''}`.trim();
}

function sendPage(
  response: ServerResponse,
  status: number,
  { title, body }: { title: string; body: string },
) {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`;
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(html);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * `oauth.v2.access` with `grant_type=refresh_token` (docs.slack.dev/authentication/using-token-rotation):
 * a new access token and a new refresh token; the old refresh token is spent.
 */
export function createTokenRefresher({
  clientId,
  clientSecret,
  clientOptions,
}: {
  clientId: string;
  clientSecret: string;
  clientOptions: webApi.WebClientOptions;
}): (refreshToken: string) => Promise<RefreshedToken> {
  const client = new webApi.WebClient(undefined, clientOptions);
  return async (refreshToken) => {
    const response = await client.oauth.v2.access({
      client_id: clientId,
      client_secret: clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    const { access_token: accessToken, refresh_token: newRefreshToken, expires_in: expiresInSec } = response;
    if (accessToken === undefined || newRefreshToken === undefined || expiresInSec === undefined) {
      throw new Error('Slack refreshed a token without a new token, refresh token or expiry');
    }
    return { accessToken, refreshToken: newRefreshToken, expiresInSec };
  };
}
