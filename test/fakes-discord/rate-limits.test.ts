import type { Client, TextChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, type RestRouteName, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

describe('fake discord: rate limits over raw HTTP', () => {
  let fake: FakeDiscord;

  beforeAll(async () => {
    fake = await startFakeDiscord({ rateLimits: { global: { limit: 8, windowMs: 1000 } } });
  });
  afterAll(() => fake.close());
  afterEach(() => {
    fake.reset();
    fake.setRateLimits({ global: { limit: 8, windowMs: 1000 } });
  });

  function post(channelId: string, content: string): Promise<Response> {
    return fetch(`${fake.apiUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
    });
  }

  it('sends the X-RateLimit headers of the per-channel bucket on every answer', async () => {
    const response = await post(fake.textChannelIds[0] ?? '', 'one');

    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(response.headers.get('x-ratelimit-bucket')).toBe('message-create');
    expect(Number(response.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(4.9);
    expect(Number(response.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now() + 4000);
  });

  it('answers the sixth create in a channel within 5 s with a per-route 429', async () => {
    const channelId = fake.textChannelIds[0] ?? '';
    for (let index = 0; index < 5; index += 1) {
      expect((await post(channelId, `message ${index}`)).status).toBe(200);
    }
    const refused = await post(channelId, 'one too many');

    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(4);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-scope')).toBe('user');
    expect(refused.headers.get('x-ratelimit-global')).toBeNull();
    expect(await refused.json()).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(fake.rateLimitHits).toMatchObject({
      total: 1,
      route: 1,
      global: 0,
      byRoute: { 'message-create': 1 },
    });
    expect(fake.messages(channelId)).toHaveLength(5);
    // Another channel has its own bucket.
    expect((await post(fake.textChannelIds[1] ?? '', 'elsewhere')).status).toBe(200);
  });

  it('answers a request over the global limit with a global 429, sparing interaction callbacks', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 9; index += 1) {
      const channelId = fake.textChannelIds[index % 2] ?? '';
      const response = await fetch(`${fake.apiUrl}/v10/channels/${channelId}`, {
        headers: { authorization: `Bot ${fake.token}` },
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.headers.get('x-ratelimit-global')).toBe('true');
        expect(response.headers.get('x-ratelimit-scope')).toBe('global');
        const body = (await response.json()) as { retry_after: number; global: boolean };
        expect(body.global).toBe(true);
        expect(body.retry_after).toBeGreaterThan(0);
        expect(body.retry_after).toBeLessThanOrEqual(1);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    expect(fake.rateLimitHits.global).toBe(1);

    // Exempt: a callback is judged on its own merits (here: an unknown interaction).
    const callback = await fetch(`${fake.apiUrl}/v10/interactions/1/nope/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { content: 'hello' } }),
    });
    expect(callback.status).toBe(404);
  });

  it('refuses to force a 429 on a route that does not exist', () => {
    expect(() => fake.forceRateLimit({ route: 'editMessage' as RestRouteName, retryAfterMs: 100 })).toThrow(
      /no route named editMessage/,
    );
  });

  it('sends no rate-limit headers when limits are off', async () => {
    fake.setRateLimits(false);
    const response = await post(fake.textChannelIds[0] ?? '', 'free');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('refuses a wrong or missing bot token with 401', async () => {
    const wrong = await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: { authorization: 'Bot wrong' } });
    const missing = await fetch(`${fake.apiUrl}/v10/users/@me`);
    expect([wrong.status, missing.status]).toEqual([401, 401]);
    expect(await wrong.json()).toEqual({ message: '401: Unauthorized', code: 0 });
  });
});

describe('fake discord: how the real client meets the limits', () => {
  let fake: FakeDiscord;
  let client: Client<true>;

  beforeAll(async () => {
    fake = await startFakeDiscord({ textChannelCount: 60 });
    client = await connectClient(fake);
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });
  afterEach(() => fake.reset());

  function channel(index: number): TextChannel {
    return client.channels.cache.get(fake.textChannelIds[index] ?? '') as TextChannel;
  }

  it('spreads 8 concurrent edits over two 5 s windows, in order, without a single 429', async () => {
    const message = await channel(0).send('0');
    const startedAtMs = performance.now();

    await Promise.all(Array.from({ length: 8 }, (_, index) => message.edit(`edit ${index + 1}`)));

    // discord.js reads Remaining/Reset-After and waits by itself: 5 go at once, 3 after the reset.
    expect(performance.now() - startedAtMs).toBeGreaterThan(4500);
    expect(fake.rateLimitHits.total).toBe(0);
    expect(fake.message(message.id)?.revisions.map((revision) => revision.content)).toEqual([
      '0',
      ...Array.from({ length: 8 }, (_, index) => `edit ${index + 1}`),
    ]);
    const edits = fake.requests.filter((call) => call.route === 'message-edit');
    expect((edits[5]?.atMs ?? 0) - (edits[4]?.atMs ?? 0)).toBeGreaterThan(4500);
  });

  it('retries a forced 429 after its Retry-After, per route and global', async () => {
    const message = await channel(1).send('draft');
    fake.forceRateLimit({ route: 'message-edit', retryAfterMs: 300 });
    const startedAtMs = performance.now();

    await message.edit('final');
    expect(performance.now() - startedAtMs).toBeGreaterThan(300);
    expect(fake.message(message.id)?.content).toBe('final');

    fake.forceRateLimit({ route: 'message-create', retryAfterMs: 200, isGlobal: true });
    await channel(1).send('after a global 429');
    expect(fake.rateLimitHits).toMatchObject({
      total: 2,
      forced: 2,
      byRoute: { 'message-edit': 1, 'message-create': 1 },
    });
    expect(fake.requests.map((call) => `${call.route} ${call.status}`)).toEqual([
      'message-create 200',
      'message-edit 429',
      'message-edit 200',
      'message-create 429',
      'message-create 200',
    ]);
  });

  it('holds 120 creates across 60 channels to 50 a second and loses none', async () => {
    const startedAtMs = performance.now();

    await Promise.all(
      fake.textChannelIds.flatMap((_, index) => [channel(index).send('a'), channel(index).send('b')]),
    );

    // 50 + 50 + 20: the third batch cannot start before two windows have passed.
    expect(performance.now() - startedAtMs).toBeGreaterThan(1900);
    for (const channelId of fake.textChannelIds) {
      expect(fake.messages(channelId).map((message) => message.content)).toEqual(['a', 'b']);
    }
    // The client limits itself to 50/s; its window and the fake's can drift apart while new
    // connections open, and the fake then answers a global 429 that the client waits out.
    expect(fake.rateLimitHits.route).toBe(0);
    expect(fake.rateLimitHits.global).toBe(fake.rateLimitHits.total);
    const accepted = fake.requests.filter((call) => call.status === 200);
    expect(accepted).toHaveLength(120);
  });
});
