import { ErrorCode, type WebAPIRateLimitedError, WebClient, WebClientEvent } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createRateLimiter } from '../fakes/slack/rate-limiter.ts';
import { createWebClient, silentLogger } from './web-client.ts';

describe('fake slack: rate limiter', () => {
  it('lets a burst through, then refills at the per-minute rate', () => {
    let nowMs = 0;
    const limiter = createRateLimiter({
      nowMs: () => nowMs,
      limits: { 'chat.update': { perMinute: 60, burst: 2, scope: 'workspace' } },
    });

    expect(limiter.admit('chat.update', 'C1')).toBeUndefined();
    expect(limiter.admit('chat.update', 'C2')).toBeUndefined();
    expect(limiter.admit('chat.update', 'C1')).toEqual({ retryAfterSec: 1 });
    nowMs = 1_000;
    expect(limiter.admit('chat.update', 'C1')).toBeUndefined();
    expect(limiter.rateLimitedCount('chat.update')).toBe(1);
  });

  it('limits chat.update as Tier 3 by default: a burst of 10, then one every 1.2 s', () => {
    let nowMs = 0;
    const limiter = createRateLimiter({ nowMs: () => nowMs });
    const results = Array.from({ length: 11 }, () => limiter.admit('chat.update', undefined));

    expect(results.slice(0, 10)).toEqual(Array(10).fill(undefined));
    expect(results[10]).toEqual({ retryAfterSec: 2 });
    nowMs = 1_200;
    expect(limiter.admit('chat.update', undefined)).toBeUndefined();
  });

  it('keeps one chat.postMessage bucket per channel', () => {
    const limiter = createRateLimiter({ nowMs: () => 0 });
    const admitted = (channel: string) => limiter.admit('chat.postMessage', channel) === undefined;

    expect([admitted('C1'), admitted('C1'), admitted('C1'), admitted('C1')]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(admitted('C2')).toBe(true);
  });

  it('forces 429s with any Retry-After, even when limits are off', () => {
    const limiter = createRateLimiter({ isEnabled: false, nowMs: () => 0 });
    limiter.forceRateLimit({ method: 'auth.test', times: 2, retryAfterSec: 7 });

    expect([limiter.admit('auth.test', undefined), limiter.admit('auth.test', undefined)]).toEqual([
      { retryAfterSec: 7 },
      { retryAfterSec: 7 },
    ]);
    expect(limiter.admit('auth.test', undefined)).toBeUndefined();
    expect(limiter.rateLimitedCount()).toBe(2);
  });
});

describe('fake slack: rate limits with the real WebClient', () => {
  let fake: FakeSlack | undefined;
  afterEach(() => fake?.close());

  it('answers 429 with Retry-After and ok:false ratelimited past the burst', async () => {
    fake = await startFakeSlack();
    const client = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      logger: silentLogger,
    });
    for (let index = 0; index < 3; index += 1) {
      await client.chat.postMessage({ channel: 'C0LIMIT001', text: `burst ${index}` });
    }

    const error = (await client.chat
      .postMessage({ channel: 'C0LIMIT001', text: 'one too many' })
      .catch((caught: unknown) => caught)) as WebAPIRateLimitedError;
    await client.chat.postMessage({ channel: 'C0LIMIT002', text: 'another channel has its own budget' });

    expect(error.code).toBe(ErrorCode.RateLimitedError);
    expect(error.retryAfter).toBe(1);
    expect(fake.callsTo('chat.postMessage').map((call) => call.status)).toEqual([200, 200, 200, 429, 200]);
    expect(fake.callsTo('chat.postMessage')[3]?.result).toEqual({ ok: false, error: 'ratelimited' });
    expect(fake.rateLimitedCount('chat.postMessage')).toBe(1);
    expect(fake.messages('C0LIMIT001')).toHaveLength(3);
  });

  it('limits chat.update as Tier 3 across channels, with Retry-After in whole seconds', async () => {
    fake = await startFakeSlack();
    const client = createWebClient(fake);
    const posted = await Promise.all(
      ['C0LIMIT003', 'C0LIMIT004'].map((channel) => client.chat.postMessage({ channel, text: 'draft' })),
    );
    const update = (index: number) =>
      fetch(`${fake?.apiUrl}chat.update`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${fake?.botToken}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          channel: posted[index % 2]?.channel ?? '',
          ts: posted[index % 2]?.ts ?? '',
          text: `edit ${index}`,
        }),
      });

    // All at once, so no token refills (one each 1.2 s) on a slow machine while they are sent.
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => update(index)));

    const limited = responses.filter((response) => response.status === 429);
    expect(limited).toHaveLength(2);
    expect(limited.map((response) => response.headers.get('retry-after'))).toEqual(['2', '2']);
    expect(fake.rateLimitedCount('chat.update')).toBe(2);
  });

  it('completes a call the WebClient retries after Retry-After', async () => {
    fake = await startFakeSlack();
    fake.forceRateLimit({ method: 'chat.postMessage', times: 1, retryAfterSec: 1 });
    const client = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 },
      logger: silentLogger,
    });
    const rateLimitedSec: number[] = [];
    client.on(WebClientEvent.RATE_LIMITED, (retryAfterSec: number) => rateLimitedSec.push(retryAfterSec));

    const startedAtMs = performance.now();
    const result = await client.chat.postMessage({ channel: 'C0LIMIT005', text: 'eventually' });

    expect(result.ok).toBe(true);
    expect(performance.now() - startedAtMs).toBeGreaterThanOrEqual(990);
    expect(rateLimitedSec).toEqual([1]);
    expect(fake.callsTo('chat.postMessage').map((call) => call.status)).toEqual([429, 200]);
    expect(fake.messages('C0LIMIT005').map((message) => message.text)).toEqual(['eventually']);
  });

  it('has no limits when started with rateLimits: false', async () => {
    fake = await startFakeSlack({ rateLimits: false });
    const client = createWebClient(fake);

    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        client.chat.postMessage({ channel: 'C0LIMIT006', text: `${index}` }),
      ),
    );

    expect(fake.rateLimitedCount()).toBe(0);
    expect(fake.messages('C0LIMIT006')).toHaveLength(30);
  });
});
