import { type Client, DiscordAPIError, type TextChannel, type ThreadChannel } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

describe('fake discord: threads with the real client', () => {
  let fake: FakeDiscord;
  let client: Client<true>;
  let generalId: string;

  beforeAll(async () => {
    fake = await startFakeDiscord();
    // A 429 must throw here rather than wait out a ten-minute Retry-After.
    client = await connectClient(fake, { rejectOnRateLimit: ['/channels'] });
    generalId = fake.textChannelIds[0] ?? '';
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  async function questionMessage(text: string, channelId = generalId) {
    const messageId = fake.sendUserMessage({ channelId, content: text });
    const channel = client.channels.cache.get(channelId) as TextChannel;
    return channel.messages.fetch(messageId);
  }

  it('starts a public thread from a message, with the message’s id and the archive duration asked for', async () => {
    const message = await questionMessage('how do threads work?');
    const thread = await message.startThread({ name: 'Threads', autoArchiveDuration: 60 });
    expect(thread.id).toBe(message.id);
    expect(thread.parentId).toBe(generalId);
    expect(thread.autoArchiveDuration).toBe(60);
    expect(thread.ownerId).toBe(fake.bot.id);
    // A later message in the thread reaches the client with the thread as its channel.
    const answer = await (thread as ThreadChannel).send('in the thread');
    expect(answer.channelId).toBe(thread.id);
  });

  it('refuses a second thread from the same message (160004) and a name over 100 characters', async () => {
    const message = await questionMessage('one thread only');
    await message.startThread({ name: 'First' });
    await expect(message.startThread({ name: 'Second' })).rejects.toMatchObject({ code: 160004 });
    const other = await questionMessage('too long a name');
    await expect(other.startThread({ name: 'x'.repeat(101) })).rejects.toMatchObject({ code: 50035 });
    // The OpenAPI specification forbids that name too: the refusal is recorded as its violation.
    expect(fake.takeSpecificationViolations()).toMatchObject([
      {
        kind: 'body',
        operationId: 'create_thread_from_message',
        errors: [{ instancePath: '/name', keyword: 'maxLength' }],
      },
    ]);
  });

  it('refuses without Create Public Threads (50013)', async () => {
    const channelId = fake.createTextChannel({ name: 'no-threads' });
    await fake.waitFor(() => client.channels.cache.has(channelId));
    fake.denyBotPermissions(channelId, ['create-public-threads']);
    const message = await questionMessage('no threads here', channelId);
    const failure = await message.startThread({ name: 'Nope' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DiscordAPIError);
    expect((failure as DiscordAPIError).code).toBe(50013);
  });

  it('renames a thread twice in ten minutes and answers the third rename with a long 429', async () => {
    const message = await questionMessage('rename me');
    const thread = await message.startThread({ name: 'Start' });
    await thread.setName('Second name');
    await thread.setName('Third name');
    expect(thread.name).toBe('Third name');
    const failure = await thread.setName('Fourth name').catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: expect.stringMatching(/RateLimit/) });
    expect((failure as { retryAfter: number }).retryAfter).toBeGreaterThan(9 * 60 * 1000);
  });
});
