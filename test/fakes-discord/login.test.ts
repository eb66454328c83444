import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

describe('fake discord: login', () => {
  let fake: FakeDiscord;

  beforeAll(async () => {
    fake = await startFakeDiscord();
  });
  afterAll(() => fake.close());

  it('lets the real client log in and fills its caches from READY and GUILD_CREATE', async () => {
    const startedAtMs = performance.now();
    const client = await connectClient(fake);
    try {
      expect(performance.now() - startedAtMs).toBeLessThan(2000);
      expect(client.user.id).toBe(fake.bot.id);
      expect(client.application.id).toBe(fake.applicationId);
      const guild = client.guilds.cache.get(fake.guildId);
      expect(guild?.name).toBe('Parley Test');
      expect(guild?.channels.cache.get(fake.textChannelIds[0] ?? '')?.name).toBe('general');
      expect(guild?.channels.cache.get(fake.threadId)?.isThread()).toBe(true);
      expect(guild?.roles.everyone.id).toBe(fake.guildId);
      expect(guild?.members.me?.id).toBe(fake.bot.id);
    } finally {
      await client.destroy();
    }
  });
});
