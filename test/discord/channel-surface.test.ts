import type { Client, TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelSurface } from '../../adapters/discord/channel-surface.ts';
import { createDiscordOutbound } from '../../adapters/discord/discord-outbound.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from '../fakes-discord/discord-client.ts';

describe('the Discord channel surface', () => {
  let fake: FakeDiscord;
  let client: Client<true>;

  beforeAll(async () => {
    fake = await startFakeDiscord();
    client = await connectClient(fake);
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  it('posts plainly at once when a reply is refused for Read Message History the client did not know of', async () => {
    const channelId = fake.createTextChannel({ name: 'history-taken' });
    const channel = await fake.waitFor(() => client.channels.cache.get(channelId) as TextChannel | undefined);
    const questionId = fake.sendUserMessage({ channelId, content: 'a question', mentionsBot: true });
    const question = await channel.messages.fetch(questionId);
    const surface = createChannelSurface({
      channel,
      outbound: createDiscordOutbound(),
      replyTo: question,
      botUserId: fake.bot.id,
    });
    // The overwrite is made now; its CHANNEL_UPDATE reaches the client only after this tick, so
    // the client still believes it may reply.
    fake.denyBotPermissions(channelId, ['read-message-history']);
    expect(channel.permissionsFor(fake.bot.id)?.has('ReadMessageHistory')).toBe(true);

    const posted = await surface.post('the answer');
    expect(fake.message(posted.id)).toMatchObject({ content: 'the answer', replyToMessageId: null });
    const creates = fake.requests.filter((call) => call.route === 'message-create');
    expect(creates.map((call) => [call.status, call.errorCode])).toEqual([
      [403, 50013],
      [200, null],
    ]);
  });
});
