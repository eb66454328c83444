import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSlackCallOutcomes, slackRouteClassOf } from '../../adapters/slack/report-call-outcomes.ts';
import { platformDegradation } from '../../src/operations/health.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { type FaultProxy, serviceUnavailable, startFaultProxy } from '../support/fault-proxy.ts';

/**
 * /readyz during a Slack outage: the Web API answers 503 (or nothing) for longer than a retry, so
 * replies are not getting out, and /readyz must say "platform degraded" as it does for Discord.
 * The real WebClient calls the fake Slack through a proxy that injects the outage.
 */
describe('reportSlackCallOutcomes', () => {
  let slack: FakeSlack;
  let proxy: FaultProxy;
  let client: WebClient;

  beforeAll(async () => {
    slack = await startFakeSlack();
    proxy = await startFaultProxy({ targetOrigin: new URL(slack.apiUrl).origin });
    client = new WebClient(slack.botToken, {
      slackApiUrl: `${proxy.origin}/api/`,
      retryConfig: { retries: 0 },
      fetch: reportSlackCallOutcomes(globalThis.fetch),
    });
  });
  afterAll(async () => {
    await proxy.close();
    await slack.close();
  });

  const post = () => client.chat.postMessage({ channel: 'C0OUTAGE01', text: 'hello' });

  it('names a call by its Web API method, and an upload URL as one class', () => {
    expect(slackRouteClassOf(new URL('https://slack.com/api/chat.postMessage'))).toBe('chat.postMessage');
    expect(slackRouteClassOf(new URL('https://files.slack.com/upload/v1/ABC123xyz'))).toBe('file-upload');
  });

  it('says "platform degraded" once a method has failed for 3 s, and is ready again at its first answer', async () => {
    const outage = proxy.inject({
      matches: (request) => request.path.endsWith('/api/chat.postMessage'),
      fault: serviceUnavailable(),
      count: 1_000,
    });
    await expect(post()).rejects.toThrow();
    expect(platformDegradation('slack')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await expect(post()).rejects.toThrow();
    expect(platformDegradation('slack')).toMatch(
      /^platform degraded: chat\.postMessage failing \(503\) for 3 s$/,
    );

    outage.count = 0;
    await post();
    expect(platformDegradation('slack')).toBeUndefined();
  });

  it('counts a dropped connection as no answer, and an ok: false as Slack answering', async () => {
    proxy.inject({
      matches: (request) => request.path.endsWith('/api/chat.postMessage'),
      fault: { kind: 'drop' },
      count: 2,
    });
    await expect(post()).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await expect(post()).rejects.toThrow();
    expect(platformDegradation('slack')).toMatch(/chat\.postMessage failing \(no answer \(\w+\)\)/);

    slack.failNext({ method: 'chat.postMessage', error: 'channel_not_found' });
    await expect(post()).rejects.toThrow('channel_not_found');
    expect(platformDegradation('slack')).toBeUndefined();
  });
});
