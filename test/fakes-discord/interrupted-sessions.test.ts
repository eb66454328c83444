import { type Client, Events, type Message } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

// events/gateway.mdx, "Resuming": a session that cannot be resumed gets INVALID_SESSION (`d: false`)
// and the client identifies afresh; the events of the gap are not replayed to the new session.
describe('fake discord: sessions lost, identified afresh', () => {
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

  it('a new READY, and the message sent in the gap never arrives; the next one does', async () => {
    const general = fake.textChannelIds[0] ?? '';
    const received: string[] = [];
    client.on(Events.MessageCreate, (message: Message) => received.push(message.content));
    let readyCount = 0;
    client.on(Events.ShardReady, () => {
      readyCount += 1;
    });
    const gap = fake.interruptGateway();
    fake.sendUserMessage({ channelId: general, content: 'sent in the gap' });
    gap.end();
    await fake.waitFor(() => readyCount === 1 && fake.identifiedSessionCount === 1, { timeoutMs: 15_000 });
    fake.sendUserMessage({ channelId: general, content: 'sent after' });
    await fake.waitFor(() => received.includes('sent after'));
    expect(received).toEqual(['sent after']);
    // The message is there for whoever reads the channel.
    expect(fake.messages(general).map((message) => message.content)).toContain('sent in the gap');
  }, 20_000);
});
