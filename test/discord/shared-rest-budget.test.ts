import { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countedRequests } from '../../adapters/discord/counted-requests.ts';
import { createSharedRestGate } from '../../adapters/discord/shared-rest-budget.ts';
import { failOpen } from '../../src/delivery/fail-open-limit.ts';
import type { SharedRateLimit } from '../../src/delivery/redis-sliding-window.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';

/** A shared window that grants every slot and counts them, standing in for the Redis one. */
function countingWindow(): SharedRateLimit & { readonly taken: string[] } {
  const taken: string[] = [];
  return {
    taken,
    learn: () => undefined,
    async tryAcquire(key) {
      taken.push(key);
      return { isGranted: true, release: async () => undefined };
    },
  };
}

const logger = pino({ level: 'silent' });
let discord: FakeDiscord;

beforeAll(async () => {
  discord = await startFakeDiscord();
});

afterAll(async () => {
  await discord.close();
});

describe('the shared Discord request budget under discord.js', () => {
  it('takes a slot for a request of its own, and none for one the outbound queue already counted', async () => {
    const window = countingWindow();
    const rest = new REST({
      api: discord.apiUrl,
      makeRequest: createSharedRestGate({ window, botKey: 'bot', logger }),
    }).setToken(discord.token);
    const channelId = discord.textChannelIds[0] ?? '';
    await rest.post(Routes.channelMessages(channelId), { body: { content: 'not through the queue' } });
    expect(window.taken).toEqual(['bot']);
    // The mark survives discord.js's own request queue: several at once on one route all pass.
    await countedRequests.run(true, () =>
      Promise.all(
        ['one', 'two', 'three'].map((content) =>
          rest.post(Routes.channelMessages(channelId), { body: { content } }),
        ),
      ),
    );
    expect(window.taken).toEqual(['bot']);
    expect(discord.messages(channelId).map((message) => message.content)).toEqual([
      'not through the queue',
      'one',
      'two',
      'three',
    ]);
  });

  it('grants when the shared budget cannot be asked, so a Redis outage does not silence the bot', async () => {
    const broken: SharedRateLimit = {
      learn: () => undefined,
      tryAcquire: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      },
    };
    const warnings: string[] = [];
    const warningLogger = pino(
      { level: 'warn' },
      { write: (line: string) => warnings.push(String(JSON.parse(line).msg)) },
    );
    const limit = failOpen({
      limit: broken,
      logger: warningLogger,
      what: 'the shared Discord request budget',
    });
    const first = await limit.tryAcquire('bot', Date.now());
    const second = await limit.tryAcquire('bot', Date.now());
    expect([first.isGranted, second.isGranted]).toEqual([true, true]);
    // Logged once, not once a call.
    expect(warnings).toEqual(['the shared Discord request budget is unavailable; sending without it']);
  });
});
