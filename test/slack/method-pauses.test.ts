import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMethodPauses, type MethodPauses } from '../../adapters/slack/method-pauses.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

/** The real WebClient, configured as the adapter configures it, against the fake Slack. */
describe('slack method pauses', () => {
  let slack: FakeSlack;
  let pauses: MethodPauses;
  let client: webApi.WebClient;

  beforeAll(async () => {
    slack = await startFakeSlack({ rateLimits: false });
  });
  afterAll(() => slack.close());
  beforeEach(() => {
    slack.reset();
    pauses = createMethodPauses({ apiUrl: slack.apiUrl, logger: createCapturedLogger().logger });
    client = new webApi.WebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      fetch: pauses.fetch,
    });
  });

  it('holds a limited method for its Retry-After and sends it again, while other methods go on', async () => {
    slack.forceRateLimit({ method: 'chat.update', retryAfterSec: 1 });
    const { ts } = await client.chat.postMessage({ channel: 'C0PAUSES01', text: 'draft' });
    const settled: string[] = [];

    const update = client.chat
      .update({ channel: 'C0PAUSES01', ts: String(ts), text: 'final' })
      .then(() => settled.push('chat.update'));
    await slack.waitFor(() => slack.rateLimitedCount('chat.update') === 1);
    await client.chat.postMessage({ channel: 'C0PAUSES01', text: 'meanwhile' });
    settled.push('chat.postMessage');
    await update;

    expect(settled).toEqual(['chat.postMessage', 'chat.update']);
    expect(slack.messages('C0PAUSES01').map((message) => message.text)).toEqual(['final', 'meanwhile']);
    const updates = slack.callsTo('chat.update');
    expect(updates.map((call) => call.status)).toEqual([429, 200]);
    expect((updates[1]?.receivedAtMs ?? 0) - (updates[0]?.receivedAtMs ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('fails an optional call at once while its method is limited, without asking Slack again', async () => {
    slack.forceRateLimit({ method: 'users.info', retryAfterSec: 30 });

    const first = await client.users.info({ user: 'U0PERSON01' }).catch((error: unknown) => error);
    const second = await client.users.info({ user: 'U0PERSON02' }).catch((error: unknown) => error);

    expect([first, second].map((error) => (error as { code?: string }).code)).toEqual([
      'slack_webapi_rate_limited_error',
      'slack_webapi_rate_limited_error',
    ]);
    expect((second as { retryAfter?: number }).retryAfter).toBeGreaterThan(25);
    expect(slack.callsTo('users.info')).toHaveLength(1);
  });

  it('counts chat.postMessage per channel', async () => {
    slack.forceRateLimit({ method: 'chat.postMessage', retryAfterSec: 1 });
    const limited = client.chat.postMessage({ channel: 'C0PAUSES02', text: 'held' });
    await slack.waitFor(() => slack.rateLimitedCount('chat.postMessage') === 1);

    await client.chat.postMessage({ channel: 'C0PAUSES03', text: 'another channel' });
    expect(slack.messages('C0PAUSES02')).toEqual([]);
    await limited;
    expect(slack.messages('C0PAUSES02').map((message) => message.text)).toEqual(['held']);
  });
});
