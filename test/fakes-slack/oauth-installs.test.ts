import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createWebClient, silentLogger, slackErrorOf } from './web-client.ts';

/**
 * The fake's OAuth side with the real WebClient: oauth.v2.access (docs.slack.dev/reference/methods/oauth.v2.access),
 * token rotation (docs.slack.dev/authentication/using-token-rotation), auth.test per installed token,
 * a workspace's channels closed to another's token, revoked tokens, and rate limits per workspace.
 */
describe('fake slack: installs by OAuth', () => {
  let fake: FakeSlack;
  const authorizeUrl = (clientId: string) =>
    `https://slack.com/oauth/v2/authorize?client_id=${clientId}&scope=chat:write,commands&state=s1`;

  beforeAll(async () => {
    // users.info narrowed to a burst of 2, to see whose bucket a call takes from.
    fake = await startFakeSlack({
      isTokenRotationEnabled: true,
      rateLimits: { 'users.info': { perMinute: 1, burst: 2, scope: 'workspace' } },
    });
    fake.addInstallableWorkspace({ teamId: 'T0ONE0001', teamName: 'One', channels: ['C0ONE0001'] });
    fake.addInstallableWorkspace({ teamId: 'T0TWO0001', teamName: 'Two', channels: ['C0TWO0001'] });
  });
  afterAll(() => fake.close());

  async function install(teamId: string) {
    const { code } = fake.approveInstall({ authorizeUrl: authorizeUrl(fake.clientId), teamId });
    return createWebClient(fake, '').oauth.v2.access({
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      code,
    });
  }

  it('exchanges a code once, with the app’s credentials, for a rotating token and its refresh token', async () => {
    const { code } = fake.approveInstall({ authorizeUrl: authorizeUrl(fake.clientId), teamId: 'T0ONE0001' });
    const client = createWebClient(fake, '');
    expect(
      await slackErrorOf(
        client.oauth.v2.access({ client_id: 'wrong', client_secret: fake.clientSecret, code }),
      ),
    ).toBe('invalid_client_id');
    expect(
      await slackErrorOf(client.oauth.v2.access({ client_id: fake.clientId, client_secret: 'wrong', code })),
    ).toBe('bad_client_secret');
    const granted = await client.oauth.v2.access({
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      code,
    });
    expect(granted).toMatchObject({
      token_type: 'bot',
      scope: 'chat:write,commands',
      team: { id: 'T0ONE0001', name: 'One' },
      is_enterprise_install: false,
      expires_in: 43_200,
    });
    expect(granted.access_token).toMatch(/^xoxe\.xoxb-1-/);
    expect(granted.refresh_token).toMatch(/^xoxe-1-/);
    expect(
      await slackErrorOf(
        client.oauth.v2.access({ client_id: fake.clientId, client_secret: fake.clientSecret, code }),
      ),
    ).toBe('invalid_code');

    const refresh = () =>
      client.oauth.v2.access({
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: granted.refresh_token ?? '',
      });
    const refreshed = await refresh();
    expect(refreshed.access_token).not.toBe(granted.access_token);
    expect(await slackErrorOf(refresh())).toBe('invalid_refresh_token');
    expect(fake.oauth.refreshCount).toBe(1);
  });

  it('answers auth.test per token, keeps each workspace’s channels to its own token, and refuses revoked tokens', async () => {
    const one = createWebClient(fake, (await install('T0ONE0001')).access_token);
    const two = createWebClient(fake, (await install('T0TWO0001')).access_token);
    expect(await one.auth.test()).toMatchObject({
      team_id: 'T0ONE0001',
      team: 'One',
      url: 'https://t0one0001.slack.com/',
    });
    expect(await two.auth.test()).toMatchObject({ team_id: 'T0TWO0001', team: 'Two' });
    const posted = await one.chat.postMessage({ channel: 'C0ONE0001', text: 'hello one' });
    // A native stream's recipient is in the token's own workspace (chat.startStream "team_not_found").
    const stream = { channel: 'C0ONE0001', thread_ts: posted.ts ?? '', recipient_user_id: 'U0READER1' };
    expect((await one.chat.startStream({ ...stream, recipient_team_id: 'T0ONE0001' })).ok).toBe(true);
    expect(await slackErrorOf(one.chat.startStream({ ...stream, recipient_team_id: 'T0TWO0001' }))).toBe(
      'team_not_found',
    );
    expect(await slackErrorOf(two.chat.postMessage({ channel: 'C0ONE0001', text: 'not yours' }))).toBe(
      'channel_not_found',
    );

    fake.revokeInstallation({ teamId: 'T0TWO0001' });
    expect(await slackErrorOf(two.auth.test())).toBe('token_revoked');
    expect((await one.auth.test()).team_id).toBe('T0ONE0001');
  });

  it('counts rate limits per workspace: each workspace has its own burst', async () => {
    fake.addInstallableWorkspace({ teamId: 'T0RATE0001', channels: [] });
    fake.addInstallableWorkspace({ teamId: 'T0RATE0002', channels: [] });
    // A 429 rejects at once instead of being waited out and retried.
    const first = new WebClient((await install('T0RATE0001')).access_token, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logger: silentLogger,
    });
    const second = createWebClient(fake, (await install('T0RATE0002')).access_token);
    for (let call = 0; call < 2; call += 1) await first.users.info({ user: 'U0SOMEONE' });
    expect(fake.rateLimitedCount('users.info')).toBe(0);
    await expect(first.users.info({ user: 'U0SOMEONE' })).rejects.toThrow();
    expect(fake.rateLimitedCount('users.info')).toBe(1);
    expect((await second.users.info({ user: 'U0SOMEONE' })).ok).toBe(true);
  });
});
