import { DiscordAPIError, RateLimitError, REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createInvalidRequestGuard,
  DiscordRequestWithheldError,
  type InvalidRequestLimits,
  routeOf,
} from '../../adapters/discord/invalid-request-guard.ts';
import { discordRestAgent } from '../../adapters/discord/rest-agent.ts';
import { checkReadiness } from '../../src/operations/health.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Discord's Invalid Request Limit, lowered to 20 in the fake and in the guard alike, against
 * discord.js's own REST client over loopback: the guard warns at half, withholds a route that
 * keeps failing, stops everything at nine tenths, and the fake never bans; without it, it does.
 */
const lowered: InvalidRequestLimits = { limit: 20, windowMs: 10 * 60 * 1000, routeFailureLimit: 3 };

let fake: FakeDiscord;
beforeAll(async () => {
  fake = await startFakeDiscord({ invalidRequestLimit: { limit: lowered.limit } });
});
afterAll(() => fake.close());
afterEach(() => fake.reset());

function restClient(options: { makeRequest?: REST['options']['makeRequest'] } = {}): REST {
  return new REST({
    api: fake.apiUrl,
    agent: discordRestAgent(),
    // A 429 is thrown, not waited out: the ban's Retry-After is an hour.
    rejectOnRateLimit: () => true,
    ...options,
  }).setToken(fake.token);
}

/** Posts to the channel; what came back: `sent`, Discord's status, `withheld`, or `rate limited`. */
async function post(rest: REST, channelId: string): Promise<string> {
  try {
    await rest.post(Routes.channelMessages(channelId), { body: { content: 'hello' } });
    return 'sent';
  } catch (error) {
    if (error instanceof DiscordRequestWithheldError) return 'withheld';
    if (error instanceof DiscordAPIError) return String(error.status);
    if (error instanceof RateLimitError) return 'rate limited';
    throw error;
  }
}

const postsTo = (channelId: string) =>
  fake.requests.filter((call) => call.method === 'POST' && call.path === `/channels/${channelId}/messages`)
    .length;

describe('the invalid request guard, with discord.js REST against the fake', () => {
  it('withholds a route that keeps answering 403, and keeps sending elsewhere', async () => {
    const { logger, output } = createCapturedLogger([]);
    const guard = createInvalidRequestGuard({ logger, limits: lowered });
    const rest = restClient({ makeRequest: guard.makeRequest });
    const [allowed = '', denied = ''] = fake.textChannelIds;
    fake.denyBotPermissions(denied, ['send-messages']);

    const answers = [];
    for (let index = 0; index < 6; index += 1) answers.push(await post(rest, denied));
    expect(answers).toEqual(['403', '403', '403', 'withheld', 'withheld', 'withheld']);
    expect(postsTo(denied)).toBe(3);
    expect(guard.invalidCount).toBe(3);
    expect(await post(rest, allowed)).toBe('sent');
    const logged = output()
      .split('\n')
      .filter((line) => line.includes('a route keeps failing'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] ?? '{}')).toMatchObject({
      route: `POST /channels/${denied}/messages`,
      failures: 3,
    });
  });

  it('warns at half the limit in the log and on /readyz, stops at nine tenths, and is never banned', async () => {
    const { logger, output } = createCapturedLogger([]);
    const guard = createInvalidRequestGuard({ logger, limits: lowered });
    const rest = restClient({ makeRequest: guard.makeRequest });
    const allowed = fake.textChannelIds[0] ?? '';
    // Failures spread over many channels, none failing often enough to be withheld by itself.
    const denied = Array.from({ length: 12 }, (_, index) => {
      const channelId = fake.createTextChannel({ name: `denied-${index}` });
      fake.denyBotPermissions(channelId, ['send-messages']);
      return channelId;
    });
    const readinessWarnings = async () =>
      (await checkReadiness({ platforms: [], probeStore: async () => undefined })).warnings;

    for (const channelId of denied.slice(0, 5)) {
      expect([await post(rest, channelId), await post(rest, channelId)]).toEqual(['403', '403']);
    }
    expect(guard.invalidCount).toBe(10);
    expect(output()).toContain('half the invalid request limit used');
    expect(await readinessWarnings()).toEqual([
      'discord: 10 invalid requests (401, 403, 429) in the last 10 minutes; Discord bans the IP address at 20',
    ]);

    const answers = [];
    for (const channelId of denied.slice(5))
      answers.push(await post(rest, channelId), await post(rest, channelId));
    // 18 invalid requests is nine tenths of 20: the rest is withheld, whatever the channel.
    expect(answers.filter((answer) => answer === '403')).toHaveLength(8);
    expect(answers.slice(8).every((answer) => answer === 'withheld')).toBe(true);
    expect(await post(rest, allowed)).toBe('withheld');
    expect(output()).toContain('sending nothing until the count falls');
    expect(fake.invalidRequests).toMatchObject({ count: 18, isBanned: false, refusedWhileBanned: 0 });
  });

  it('without the guard, the same failures get the client banned: even a good request is refused', async () => {
    const rest = restClient();
    const allowed = fake.textChannelIds[0] ?? '';
    const denied = Array.from({ length: 10 }, (_, index) => {
      const channelId = fake.createTextChannel({ name: `unguarded-${index}` });
      fake.denyBotPermissions(channelId, ['send-messages']);
      return channelId;
    });
    for (const channelId of denied) {
      expect([await post(rest, channelId), await post(rest, channelId)]).toEqual(['403', '403']);
    }
    expect(fake.invalidRequests.isBanned).toBe(true);
    expect(await post(rest, allowed)).toBe('rate limited');
    expect(fake.invalidRequests.refusedWhileBanned).toBe(1);
  });

  it('forgets what the window has passed: the warning lifts and a withheld route is sent to again', async () => {
    const { logger } = createCapturedLogger([]);
    let clockMs = 1_000_000;
    let sent = 0;
    // Discord answering 403 to everything, on a clock the test moves.
    const guard = createInvalidRequestGuard({
      logger,
      limits: { limit: 8, windowMs: 60_000, routeFailureLimit: 3 },
      nowMs: () => clockMs,
      baseRequest: async () => {
        sent += 1;
        return new Response(null, { status: 403 });
      },
    });
    const url = 'https://discord.com/api/v10/channels/5/messages';
    const send = () =>
      guard.makeRequest(url, { method: 'POST' }).then(
        (response) => response.status,
        (error: unknown) => (error instanceof DiscordRequestWithheldError ? 'withheld' : 'other'),
      );
    const warnings = async () =>
      (await checkReadiness({ platforms: [], probeStore: async () => undefined })).warnings;
    expect([await send(), await send(), await send(), await send()]).toEqual([403, 403, 403, 'withheld']);
    expect(sent).toBe(3);
    await guard.makeRequest('https://discord.com/api/v10/channels/6/messages', { method: 'POST' });
    expect(await warnings()).toHaveLength(1);

    clockMs += 60_001;
    expect(await warnings()).toEqual([]);
    expect(await send()).toBe(403);
    expect(sent).toBe(5);
  });

  it('names a route by its major parameter, never by a token', () => {
    const api = 'https://discord.com/api/v10';
    expect(routeOf('post', `${api}/channels/123/messages`)).toBe('POST /channels/123/messages');
    expect(routeOf('PATCH', `${api}/channels/123/messages/456`)).toBe('PATCH /channels/123/messages/:id');
    expect(routeOf('PUT', `${api}/channels/123/messages/456/reactions/%F0%9F%91%8D/@me`)).toBe(
      'PUT /channels/123/messages/:id/reactions/:emoji/@me',
    );
    const followUp = routeOf('PATCH', `${api}/webhooks/42/secret-interaction-token/messages/@original`);
    expect(followUp).toMatch(/^PATCH \/webhooks\/42\/:token-[0-9a-f]{12}\/messages\/@original$/);
    expect(followUp).not.toContain('secret');
    expect(routeOf('POST', `${api}/interactions/77/another-secret/callback`)).toMatch(
      /^POST \/interactions\/77\/:token-[0-9a-f]{12}\/callback$/,
    );
  });

  it('in the running adapter, counts every REST answer: 429s on a reply reach /readyz at half the limit', async () => {
    const under = await startDiscordUnderTest(
      {},
      {
        fakeDiscord: { invalidRequestLimit: { limit: 6 } },
        invalidRequestLimits: { limit: 6, windowMs: 10 * 60 * 1000, routeFailureLimit: 3 },
      },
    );
    try {
      under.discord.forceRateLimit({ route: 'message-create', retryAfterMs: 50, count: 3 });
      under.gateway.enqueue({ text: 'Answered after the waits.' });
      under.discord.sendUserMessage({
        channelId: under.generalChannelId,
        content: 'hello',
        mentionsBot: true,
      });
      await under.discord.waitFor(() =>
        under
          .botMessages(under.generalChannelId)
          .find((message) => message.content === 'Answered after the waits.'),
      );
      const readiness = await checkReadiness({ platforms: [], probeStore: async () => undefined });
      expect(readiness.warnings).toEqual([
        'discord: 3 invalid requests (401, 403, 429) in the last 10 minutes; Discord bans the IP address at 6',
      ]);
      expect(under.logOutput()).toContain('half the invalid request limit used');
    } finally {
      await under.close();
    }
  });
});
