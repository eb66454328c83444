import { DefaultRestOptions } from '@discordjs/rest';
import type { Client, SendableChannels, TextChannel } from 'discord.js';
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

  it('a first post tried again after a 502 is still the reply to the question', async () => {
    const channelId = fake.createTextChannel({ name: 'bad-gateway' });
    let badGatewaysLeft = 1;
    // Discord's load balancer answers the first create with a 502; discord.js does not retry it here.
    const flaky = await connectClient(fake, {
      retries: 0,
      makeRequest: async (url: string, init: RequestInit) => {
        if (
          init.method === 'POST' &&
          url.endsWith(`/channels/${channelId}/messages`) &&
          badGatewaysLeft > 0
        ) {
          badGatewaysLeft -= 1;
          return new Response('<html>502 Bad Gateway</html>', { status: 502 });
        }
        return DefaultRestOptions.makeRequest(url, init as never);
      },
    });
    try {
      const channel = await fake.waitFor(
        () => flaky.channels.cache.get(channelId) as TextChannel | undefined,
      );
      const questionId = fake.sendUserMessage({ channelId, content: 'a question', mentionsBot: true });
      const question = await channel.messages.fetch(questionId);
      const surface = createChannelSurface({
        channel,
        outbound: createDiscordOutbound(),
        replyTo: question,
        botUserId: fake.bot.id,
      });
      await expect(surface.post('the answer')).rejects.toMatchObject({ status: 502 });
      const posted = await surface.post('the answer');
      expect(fake.message(posted.id)).toMatchObject({ content: 'the answer', replyToMessageId: questionId });
    } finally {
      await flaky.destroy();
    }
  });
  it('shows typing for one reply a moment after it began, and none in a burst of replies waiting for their first text', async () => {
    const typingIn = (channelIds: readonly string[]) =>
      fake.requests.filter(
        (call) => call.route === 'typing' && channelIds.includes(call.params.channelId ?? ''),
      );
    const surfaceIn = async (channelId: string, outbound: ReturnType<typeof createDiscordOutbound>) => {
      const channel = await fake.waitFor(
        () => client.channels.cache.get(channelId) as TextChannel | undefined,
      );
      return createChannelSurface({ channel, outbound, botUserId: fake.bot.id });
    };

    const aloneId = fake.createTextChannel({ name: 'alone' });
    const alone = await surfaceIn(aloneId, createDiscordOutbound());
    await alone.showTyping?.();
    expect(typingIn([aloneId])).toHaveLength(0);
    await fake.waitFor(() => (typingIn([aloneId]).length === 1 ? true : undefined));

    // Twenty mentions at once: each would need a create from the bot's 50/s soon; typing would take
    // a dozen of the first second's slots from them (Discord: topics/rate-limits.mdx, global limit).
    const outbound = createDiscordOutbound();
    const burstIds = Array.from({ length: 20 }, (_, index) =>
      fake.createTextChannel({ name: `burst-${index}` }),
    );
    const burst = await Promise.all(burstIds.map((channelId) => surfaceIn(channelId, outbound)));
    for (const surface of burst) await surface.showTyping?.();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(typingIn(burstIds)).toHaveLength(0);
    // Once their first texts are posted, a reply's typing goes again.
    for (const surface of burst) await surface.post('the answer');
    await burst[0]?.showTyping?.();
    expect(typingIn(burstIds)).toHaveLength(1);
  });
  it('sends no delayed typing once the first post has started, however long Discord takes to answer it', async () => {
    const calls: string[] = [];
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // A channel whose create takes longer than the typing delay: the model answered at once.
    const channel = {
      id: '1000000000000000001',
      async send() {
        calls.push('create sent');
        await pause(300);
        calls.push('create answered');
        return { id: '1000000000000000002' };
      },
      async sendTyping() {
        calls.push('typing');
      },
    } as unknown as SendableChannels;
    const surface = createChannelSurface({
      channel,
      outbound: createDiscordOutbound(),
      botUserId: fake.bot.id,
    });
    await surface.showTyping?.();
    await pause(50);
    await surface.post('a quick answer');
    await pause(100);
    expect(calls).toEqual(['create sent', 'create answered']);
  });
});
