import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';

/**
 * The Invalid Request Limit (topics/rate-limits.mdx, "Invalid Request Limit aka Cloudflare bans"),
 * lowered to 6 per window: 401, 403 and 429 not `shared` count; past the limit every request is
 * refused, whatever its token or route.
 */
describe('fake discord: the invalid request limit over raw HTTP', () => {
  let fake: FakeDiscord;

  beforeAll(async () => {
    fake = await startFakeDiscord({ invalidRequestLimit: { limit: 6 } });
  });
  afterAll(() => fake.close());
  afterEach(() => fake.reset());

  const post = (channelId: string, token = fake.token) =>
    fetch(`${fake.apiUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello' }),
    });

  it('counts 401, 403 and a 429 that is not shared, and bans the client once it reaches the limit', async () => {
    const [allowed = '', denied = ''] = fake.textChannelIds;
    fake.denyBotPermissions(denied, ['send-messages']);
    expect((await post(allowed, 'not-the-token')).status).toBe(401);
    expect((await post(denied)).status).toBe(403);
    fake.forceRateLimit({ route: 'message-create', retryAfterMs: 1, count: 1 });
    expect((await post(allowed)).status).toBe(429);
    expect((await post(allowed)).status).toBe(200);
    expect(fake.invalidRequests).toMatchObject({ count: 3, isBanned: false });

    for (let index = 0; index < 3; index += 1) expect((await post(denied)).status).toBe(403);
    expect(fake.invalidRequests).toMatchObject({ count: 6, isBanned: true });

    // A valid request with the right token, to a channel that works: refused all the same.
    const refused = await post(allowed);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-scope')).toBeNull();
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3590);
    expect(await refused.text()).toBe('error code: 1015');
    expect(fake.invalidRequests.refusedWhileBanned).toBe(1);
    expect(fake.requests.at(-1)).toMatchObject({ status: 429, rateLimit: 'banned' });
  });

  it('does not count a 429 whose scope is shared', async () => {
    // A thread rename's limit is per resource: Discord answers it with X-RateLimit-Scope: shared.
    // The bot starts the thread from its own message, so it may rename it.
    const parentId = fake.textChannelIds[0] ?? '';
    const message = (await (await post(parentId)).json()) as { id: string };
    const thread = await fetch(`${fake.apiUrl}/v10/channels/${parentId}/messages/${message.id}/threads`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a thread' }),
    });
    const channelId = ((await thread.json()) as { id: string }).id;
    const rename = (name: string) =>
      fetch(`${fake.apiUrl}/v10/channels/${channelId}`, {
        method: 'PATCH',
        headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    const statuses: number[] = [];
    const scopes: Array<string | null> = [];
    for (let index = 0; index < 4; index += 1) {
      const response = await rename(`name ${index}`);
      statuses.push(response.status);
      if (response.status === 429) scopes.push(response.headers.get('x-ratelimit-scope'));
    }
    expect(statuses).toContain(429);
    expect(scopes.every((scope) => scope === 'shared')).toBe(true);
    expect(fake.invalidRequests.count).toBe(0);
  });
});
