import { describe, expect, it } from 'vitest';
import { slackConfig } from '../../adapters/slack/slack-config.ts';

const oauth = {
  SLACK_CLIENT_ID: '1111111111.2222222222',
  SLACK_CLIENT_SECRET: 'client-secret-0123456789',
  SLACK_STATE_SECRET: 'state-secret-0123456789',
  SLACK_INSTALLATIONS_KEY: 'b2'.repeat(32),
  SLACK_SIGNING_SECRET: 'signing-secret',
};

/** Which Slack mode the variables choose, and what start-up refuses, one line a problem. */
describe('slack settings: one workspace by token, or many by OAuth', () => {
  it('runs one workspace with SLACK_BOT_TOKEN alone, as before', () => {
    const reading = slackConfig.read({ SLACK_BOT_TOKEN: 'xoxb-1-2', SLACK_SIGNING_SECRET: 'signing-secret' });
    expect('settings' in reading && reading.settings).toMatchObject({
      botToken: 'xoxb-1-2',
      oauth: undefined,
    });
  });

  it('installs by OAuth with the three OAuth variables and a key, in HTTP mode and in Socket Mode', () => {
    const http = slackConfig.read(oauth);
    expect('settings' in http && http.settings).toMatchObject({
      botToken: undefined,
      oauth: { clientId: oauth.SLACK_CLIENT_ID, redirectUrl: undefined, isUninstallDeleting: false },
      transport: { mode: 'http' },
    });
    const { SLACK_SIGNING_SECRET: _unused, ...withoutSigning } = oauth;
    const socket = slackConfig.read({ ...withoutSigning, SLACK_APP_TOKEN: 'xapp-1-2' });
    expect('settings' in socket && socket.settings).toMatchObject({ transport: { mode: 'socket' } });
    // The secrets the log must scrub include the OAuth ones.
    expect('secrets' in http && http.secrets).toEqual(
      expect.arrayContaining([
        oauth.SLACK_CLIENT_SECRET,
        oauth.SLACK_STATE_SECRET,
        oauth.SLACK_INSTALLATIONS_KEY,
      ]),
    );
  });

  it('refuses a bot token mixed with the OAuth variables, in one line that says why', () => {
    const reading = slackConfig.read({ ...oauth, SLACK_BOT_TOKEN: 'xoxb-1-2' });
    expect(reading).toEqual({
      problems: [
        'SLACK_BOT_TOKEN: is set together with SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET: a bot token serves one workspace, the OAuth variables install parley in many, and one process runs one of the two; unset SLACK_BOT_TOKEN or the OAuth variables',
      ],
    });
  });

  it('refuses OAuth without the rest of its variables, or with a missing or wrong-length key', () => {
    expect(slackConfig.read({ SLACK_CLIENT_ID: '1.2', SLACK_SIGNING_SECRET: 's' })).toEqual({
      problems: expect.arrayContaining([
        'SLACK_CLIENT_SECRET: is required with SLACK_CLIENT_ID to install parley by OAuth (Basic Information of your app)',
        'SLACK_STATE_SECRET: is required with SLACK_CLIENT_ID to install parley by OAuth (Basic Information of your app)',
        expect.stringMatching(/^SLACK_INSTALLATIONS_KEY: is required with OAuth/),
      ]),
    });
    const short = slackConfig.read({ ...oauth, SLACK_INSTALLATIONS_KEY: 'abcdef' });
    expect(short).toEqual({
      problems: [
        'SLACK_INSTALLATIONS_KEY: must be a 32-byte key, written as 64 hex digits or 44 base64 characters (make one with: openssl rand -base64 32)',
      ],
    });
    expect(JSON.stringify(short)).not.toContain('abcdef');
    const oldKey = slackConfig.read({ ...oauth, SLACK_INSTALLATIONS_KEY_OLD: 'c3'.repeat(31) });
    expect(oldKey).toEqual({
      problems: [expect.stringMatching(/^SLACK_INSTALLATIONS_KEY_OLD: must be a 32-byte key/)],
    });
  });
});
