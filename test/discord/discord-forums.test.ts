import type { ForumChannel } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

type ForumOptions = Parameters<FakeDiscord['createThreadOnlyChannel']>[0];

/**
 * The bot in thread mode, with a forum (or media channel) made before it starts, so that the
 * environment can name it: DISCORD_THREAD_FORUMS maps `general` to it unless `isMapped` is false.
 */
async function startWithForum({
  forum,
  environment = {},
  isMapped = true,
}: {
  forum: ForumOptions;
  environment?: Record<string, string>;
  isMapped?: boolean;
}) {
  let forumId = '';
  under = await startDiscordUnderTest((discord) => {
    forumId = discord.createThreadOnlyChannel(forum);
    return {
      DISCORD_REPLY_MODE: 'thread',
      ...(isMapped ? { DISCORD_THREAD_FORUMS: `${discord.textChannelIds[0]}=${forumId}` } : {}),
      ...environment,
    };
  });
  const subject = under;
  const tagIds = Object.fromEntries(
    (subject.discord.channel(forumId)?.availableTags ?? []).map((tag) => [tag.name, tag.id]),
  );
  return { subject, forumId, tagIds };
}

/** The posts of a forum the bot has heard of, through THREAD_CREATE or its own creating them. */
const postsOf = (subject: DiscordUnderTest, forumId: string) =>
  [...subject.adapter.client.channels.cache.values()].filter(
    (channel) => channel.isThread() && channel.parentId === forumId,
  );

const chatRequests = (subject: DiscordUnderTest) =>
  subject.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));

describe('forum and media channels on Discord', () => {
  it('answers a mention in a person’s forum post in the post, and later messages there without one', async () => {
    const { subject, forumId } = await startWithForum({
      forum: { kind: 'forum', name: 'help' },
      isMapped: false,
    });
    const postId = subject.discord.createThread({
      parentId: forumId,
      name: 'Keys',
      ownerId: subject.discord.user.id,
    });
    await subject.discord.waitFor(() => subject.adapter.client.channels.cache.get(postId));
    subject.gateway.enqueue({ text: 'Rotate one key at a time.' });
    subject.discord.sendUserMessage({
      channelId: postId,
      content: 'how do I rotate keys?',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() =>
      subject.botMessages(postId).find((message) => message.content === 'Rotate one key at a time.'),
    );
    subject.gateway.enqueue({ text: 'Then drop the old one.' });
    subject.discord.sendUserMessage({ channelId: postId, content: 'and then?' });
    await subject.discord.waitFor(() =>
      subject.botMessages(postId).find((message) => message.content === 'Then drop the old one.'),
    );
    expect(JSON.stringify(chatRequests(subject).at(-1)?.body)).toContain('Rotate one key at a time.');
    // The post is the conversation: no other post, no thread of its own.
    expect(postsOf(subject, forumId).map((post) => post.id)).toEqual([postId]);
  });

  it('opens a post with the mapped tags for a thread-mode channel, points to it, answers and titles it there', async () => {
    const { subject, forumId, tagIds } = await startWithForum({
      forum: {
        kind: 'forum',
        tags: [{ name: 'Question' }, { name: 'bug' }, { name: 'staff', isModerated: true }],
        requiresTag: true,
      },
      environment: { DISCORD_FORUM_TAGS: 'question,staff,unknown' },
    });
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Rotate one key at a time.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Rotating staging keys' }) });
    const questionId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'how do I rotate the staging keys?',
      mentionsBot: true,
    });
    const post = await subject.discord.waitFor(() => postsOf(subject, forumId)[0]);
    // The moderated tag is left out (no Manage Threads), the unknown name ignored.
    expect(subject.discord.channel(post.id)?.appliedTagIds).toEqual([tagIds.Question]);
    const starter = subject.discord.message(post.id);
    expect(starter?.content).toContain('> how do I rotate the staging keys?');
    expect(starter?.content).toContain(`/${general}/${questionId}`);
    expect(starter?.mentionIds).toEqual([]);
    await subject.discord.waitFor(() =>
      subject.botMessages(post.id).find((message) => message.content === 'Rotate one key at a time.'),
    );
    // In the channel only the pointer, a reply to the question that pings its asker.
    const inChannel = await subject.discord.waitFor(() => subject.botMessages(general)[0]);
    expect(subject.botMessages(general)).toHaveLength(1);
    expect(inChannel).toMatchObject({ content: `Answering in <#${post.id}>.`, replyToMessageId: questionId });
    expect(inChannel.mentionIds).toEqual([subject.discord.user.id]);
    await subject.discord.waitFor(() =>
      subject.discord.channel(post.id)?.name === 'Rotating staging keys' ? true : undefined,
    );
    // A later message in the post continues the same conversation, without a mention.
    subject.gateway.enqueue({ text: 'Then drop the old one.' });
    subject.discord.sendUserMessage({ channelId: post.id, content: 'and after that?' });
    await subject.discord.waitFor(() =>
      subject.botMessages(post.id).find((message) => message.content === 'Then drop the old one.'),
    );
    expect(JSON.stringify(chatRequests(subject).at(-1)?.body)).toContain('Rotate one key at a time.');
  });

  it('"Ask parley about this" in a mapped channel opens a post that links to the message', async () => {
    const { subject, forumId, tagIds } = await startWithForum({
      forum: { kind: 'forum', tags: [{ name: 'question' }] },
      environment: { DISCORD_FORUM_TAGS: 'question' },
    });
    const general = subject.generalChannelId;
    const messageId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'The deploy failed with exit code 137.',
    });
    const commandId = subject.discord.sendMessageCommand({ name: 'Ask parley about this', messageId });
    await subject.discord.waitFor(() =>
      subject.discord.interactionResponses(commandId).find((response) => response.type === 9),
    );
    subject.gateway.enqueue({ text: 'Exit code 137 means the process was killed.' });
    const submitId = subject.discord.submitModal({
      interactionId: commandId,
      values: { question: 'what does this mean?' },
    });
    const post = await subject.discord.waitFor(() => postsOf(subject, forumId)[0]);
    expect(subject.discord.channel(post.id)?.appliedTagIds).toEqual([tagIds.question]);
    const starter = subject.discord.message(post.id)?.content ?? '';
    expect(starter).toContain(
      `asked about https://discord.com/channels/${subject.discord.guildId}/${general}/${messageId}`,
    );
    expect(starter).toContain('> what does this mean?');
    await subject.discord.waitFor(() =>
      subject.botMessages(post.id).find((message) => message.content.startsWith('Exit code 137 means')),
    );
    // The asker is told where, privately; no thread was started from the message itself.
    const pointer = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.interactionId === submitId),
    );
    expect(pointer.content).toBe(`Answering in <#${post.id}>.`);
    expect(pointer.flags & 64).toBe(64);
    expect(subject.discord.channel(messageId)).toBeUndefined();
  });

  it('quotes a long question of many lines in a post that fits one message', async () => {
    const { subject, forumId } = await startWithForum({ forum: { kind: 'forum' } });
    subject.gateway.enqueue({ text: 'A long answer.' });
    // Quoting adds "> " to each line: 390 short lines would pass 2,000 characters once quoted.
    const question = 'why?\n'.repeat(390);
    subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: question,
      mentionsBot: true,
    });
    const post = await subject.discord.waitFor(() => postsOf(subject, forumId)[0]);
    const starter = subject.discord.message(post.id)?.content ?? '';
    expect([...starter].length).toBe(2_000);
    expect(starter.endsWith('…')).toBe(true);
    await subject.discord.waitFor(() =>
      subject.botMessages(post.id).find((message) => message.content === 'A long answer.'),
    );
  });

  it('answers in the channel and says why when the forum requires a tag and none is mapped', async () => {
    const { subject, forumId } = await startWithForum({
      forum: { kind: 'media', tags: [{ name: 'showcase' }], requiresTag: true },
    });
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Here it is.' });
    const questionId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'hi',
      mentionsBot: true,
    });
    // The reason comes as a note under the answer, once it is finished.
    const answer = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content.includes('needs a tag on every post')),
    );
    expect(answer.replyToMessageId).toBe(questionId);
    expect(answer.content).toContain('Here it is.');
    expect(answer.content).toContain(`<#${forumId}> needs a tag on every post`);
    expect(answer.content).toContain('DISCORD_FORUM_TAGS');
    expect(postsOf(subject, forumId)).toHaveLength(0);
    expect(subject.logOutput()).toContain('the forum requires a tag');
  });

  it('answers in the channel and names the permission when parley may not post in the forum', async () => {
    const { subject, forumId } = await startWithForum({ forum: { kind: 'forum' } });
    subject.discord.denyBotPermissions(forumId, ['send-messages']);
    await subject.discord.waitFor(() =>
      subject.adapter.client.channels.cache.get(forumId)?.isThreadOnly() &&
      (subject.adapter.client.channels.cache.get(forumId) as ForumChannel)
        .permissionsFor(subject.discord.bot.id)
        ?.has('SendMessages') === false
        ? true
        : undefined,
    );
    subject.gateway.enqueue({ text: 'Here it is.' });
    subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'hi',
      mentionsBot: true,
    });
    const answer = await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.includes('I may not post')),
    );
    expect(answer.content).toContain('Here it is.');
    expect(answer.content).toContain(`I may not post in <#${forumId}> (I need Send Messages)`);
    expect(postsOf(subject, forumId)).toHaveLength(0);
  });

  it('opens no post for a person parley may not answer, who hears why in private', async () => {
    let forumId = '';
    under = await startDiscordUnderTest((discord) => {
      forumId = discord.createThreadOnlyChannel({ kind: 'forum' });
      return {
        DISCORD_REPLY_MODE: 'thread',
        DISCORD_THREAD_FORUMS: `${discord.textChannelIds[0]}=${forumId}`,
        ACCESS_BLOCK_USER_IDS: discord.user.id,
      };
    });
    const subject = under;
    const general = subject.generalChannelId;
    const questionId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'hi',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.discord.directMessageChannel())
        .find((message) => /cannot use parley/.test(message.content)),
    );
    expect(subject.botMessages(general)).toHaveLength(0);
    expect(postsOf(subject, forumId)).toHaveLength(0);
    expect(subject.discord.channel(questionId)).toBeUndefined();
    expect(chatRequests(subject)).toHaveLength(0);
  });

  it('opens an ordinary thread, with a log line, when the mapping names a channel that is no forum', async () => {
    under = await startDiscordUnderTest((discord) => ({
      DISCORD_REPLY_MODE: 'thread',
      DISCORD_THREAD_FORUMS: `${discord.textChannelIds[0]}=${discord.textChannelIds[1]}`,
    }));
    const subject = under;
    subject.gateway.enqueue({ text: 'In a thread.' });
    const questionId = subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'hi',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() =>
      subject.botMessages(questionId).find((message) => message.content === 'In a thread.'),
    );
    expect(subject.logOutput()).toContain('not a forum or media channel of this server');
  });
});
