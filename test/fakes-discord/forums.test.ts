import { type Client, DiscordAPIError, type ForumChannel, type MediaChannel } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

// Each rule cites its page of discord-api-docs (resources/channel.mdx, topics/threads.mdx,
// topics/opcodes-and-status-codes.mdx); docs/platform-behaviour.md lists them.
describe('fake discord: forum and media channels with the real client', () => {
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
  beforeEach(() => fake.reset());

  async function forum(options: Parameters<FakeDiscord['createThreadOnlyChannel']>[0]) {
    const channelId = fake.createThreadOnlyChannel(options);
    await fake.waitFor(() => client.channels.cache.has(channelId));
    const channel = client.channels.cache.get(channelId) as ForumChannel | MediaChannel;
    const tagIds = Object.fromEntries(channel.availableTags.map((tag) => [tag.name, tag.id]));
    return { channel, tagIds };
  }

  const failureOf = async (attempt: Promise<unknown>) => {
    const failure = await attempt.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DiscordAPIError);
    return failure as DiscordAPIError;
  };

  it('reads a forum’s type, tags and REQUIRE_TAG flag as discord.js does', async () => {
    const { channel } = await forum({
      kind: 'forum',
      tags: [{ name: 'question' }, { name: 'staff', isModerated: true }],
      requiresTag: true,
    });
    expect(channel.type).toBe(15);
    expect(channel.availableTags.map((tag) => [tag.name, tag.moderated])).toEqual([
      ['question', false],
      ['staff', true],
    ]);
    expect(channel.flags.has('RequireTag')).toBe(true);
    const media = await forum({ kind: 'media' });
    expect(media.channel.type).toBe(16);
  });

  it('creates a post with its starter message (same id) and its tags', async () => {
    const { channel, tagIds } = await forum({ kind: 'forum', tags: [{ name: 'question' }] });
    const post = await channel.threads.create({
      name: 'How do I rotate keys?',
      message: { content: 'Asked in #general' },
      appliedTags: [tagIds.question ?? ''],
    });
    expect(post.parentId).toBe(channel.id);
    expect(post.appliedTags).toEqual([tagIds.question]);
    expect(fake.message(post.id)?.content).toBe('Asked in #general');
    expect(fake.channel(post.id)).toMatchObject({ kind: 'thread', parentId: channel.id });
    // A post is a thread: messages go into it, and it renames like one.
    await post.send('an answer');
    await post.setName('Rotating keys');
    expect(fake.channel(post.id)?.name).toBe('Rotating keys');
  });

  it('refuses a post without a starter message (50035 on message)', async () => {
    const { channel } = await forum({ kind: 'media' });
    // discord.js always sends `message` for a forum; the raw route shows the rule.
    const failure = await failureOf(
      client.rest.post(`/channels/${channel.id}/threads`, { body: { name: 'No message' } }),
    );
    expect(failure.code).toBe(50035);
    expect(JSON.stringify(failure.rawError)).toContain('message');
  });

  it('refuses more than 5 tags, a tag of another channel, and no tag where REQUIRE_TAG is set', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const { channel, tagIds } = await forum({
      kind: 'forum',
      tags: names.map((name) => ({ name })),
      requiresTag: true,
    });
    const post = (appliedTags: string[]) =>
      channel.threads.create({ name: 'Tagged', message: { content: 'hi' }, appliedTags });
    expect((await failureOf(post(names.map((name) => tagIds[name] ?? '')))).code).toBe(50035);
    expect((await failureOf(post([channel.id]))).code).toBe(10087);
    expect((await failureOf(post([]))).code).toBe(40067);
    // Nothing half-made was left behind.
    expect([...channel.threads.cache.values()]).toHaveLength(0);
  });

  it('refuses a moderated tag without Manage Threads', async () => {
    const { channel, tagIds } = await forum({ kind: 'forum', tags: [{ name: 'staff', isModerated: true }] });
    const failure = await failureOf(
      channel.threads.create({
        name: 'Staff',
        message: { content: 'hi' },
        appliedTags: [tagIds.staff ?? ''],
      }),
    );
    expect(failure.code).toBe(50013);
  });

  it('needs Send Messages to post, not Create Public Threads', async () => {
    const { channel } = await forum({ kind: 'forum' });
    fake.denyBotPermissions(channel.id, ['create-public-threads']);
    await channel.threads.create({ name: 'Still fine', message: { content: 'hi' } });
    fake.denyBotPermissions(channel.id, ['send-messages']);
    const failure = await failureOf(channel.threads.create({ name: 'Refused', message: { content: 'hi' } }));
    expect(failure.code).toBe(50013);
  });

  it('refuses a message sent to the forum itself (40058) and a thread started from a message (50024)', async () => {
    const { channel } = await forum({ kind: 'forum' });
    expect(
      (await failureOf(client.rest.post(`/channels/${channel.id}/messages`, { body: { content: 'x' } })))
        .code,
    ).toBe(40058);
    const failure = await failureOf(
      client.rest.post(`/channels/${channel.id}/messages/${channel.id}/threads`, { body: { name: 'x' } }),
    );
    expect(failure.code).toBe(50024);
  });
});
