import { afterEach, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

async function start(environment: Record<string, string> = {}): Promise<DiscordUnderTest> {
  under = await startDiscordUnderTest(environment);
  return under;
}

const chatRequests = (subject: DiscordUnderTest) =>
  subject.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));

describe('thread reply mode on Discord', () => {
  it('opens a public thread from the mention, answers there, and titles it after the first exchange', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'thread', DISCORD_THREAD_ARCHIVE_MINUTES: '4320' });
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Rotate one key at a time.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Rotating staging keys' }) });
    const questionId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'how do I rotate the staging keys?',
      mentionsBot: true,
    });

    // resources/channel.mdx: a thread started from a message has the message's id.
    const answer = await subject.discord.waitFor(() =>
      subject.botMessages(questionId).find((message) => message.content === 'Rotate one key at a time.'),
    );
    expect(answer.replyToMessageId).toBeNull();
    const thread = await subject.discord.waitFor(() => {
      const channel = subject.discord.channel(questionId);
      return channel?.name === 'Rotating staging keys' ? channel : undefined;
    });
    expect(thread).toMatchObject({ kind: 'thread', parentId: general, autoArchiveMinutes: 4320 });
    // Nothing of the answer went to the channel itself.
    expect(subject.botMessages(general)).toHaveLength(0);
    // The title request asked the title model (the chat model by default) for JSON.
    const titleRequest = chatRequests(subject)[1]?.body as { response_format?: { type: string } };
    expect(titleRequest.response_format?.type).toBe('json_schema');

    // Later messages in the thread continue the conversation without a mention.
    subject.gateway.enqueue({ text: 'Then drop the old one.' });
    subject.discord.sendUserMessage({ channelId: questionId, content: 'and after that?' });
    await subject.discord.waitFor(() =>
      subject.botMessages(questionId).find((message) => message.content === 'Then drop the old one.'),
    );
    const followUp = chatRequests(subject)[2]?.body as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(followUp.messages)).toContain('Rotate one key at a time.');
    // One title, after the first exchange only.
    expect(chatRequests(subject)).toHaveLength(3);
  });

  it('answers inline with a log line when it may not create public threads', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'thread' });
    const general = subject.generalChannelId;
    subject.discord.denyBotPermissions(general, ['create-public-threads']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    subject.gateway.enqueue({ text: 'Right here.' });
    const questionId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'hi',
      mentionsBot: true,
    });
    const answer = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content === 'Right here.'),
    );
    expect(answer.replyToMessageId).toBe(questionId);
    expect(subject.discord.channel(questionId)).toBeUndefined();
    expect(subject.logOutput()).toContain('may not open threads here');
    expect(subject.logOutput()).toContain('Create Public Threads');
  });

  it('follows /config: inline by default, thread once the channel is set to thread', async () => {
    const subject = await start();
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Inline.' });
    subject.discord.sendUserMessage({ channelId: general, content: 'first', mentionsBot: true });
    await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content === 'Inline.'),
    );

    await subject.services.overrides.change({
      place: { platform: 'discord', workspace: subject.discord.guildId, channel: general },
      scope: 'channel',
      name: 'REPLY_MODE',
      value: 'thread',
      changedBy: { id: subject.discord.user.id, name: 'admin' },
      at: new Date(),
    });
    subject.gateway.enqueue({ text: 'In a thread.' });
    const questionId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'second',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() =>
      subject.botMessages(questionId).find((message) => message.content === 'In a thread.'),
    );
  });

  it('answers every message of a channel in all mode, without a mention', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'all' });
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Heard you.' });
    subject.discord.sendUserMessage({ channelId: general, content: 'just talking' });
    await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content === 'Heard you.'),
    );
  });
});

describe('/title on Discord', () => {
  it('renames a thread parley opened by hand, and refuses a third rename in ten minutes without asking Discord', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'thread' });
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Sure.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Written by the model' }) });
    const threadId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'plan the launch',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() => subject.discord.channel(threadId)?.name === 'Written by the model');

    // The model's title was the first rename; /title makes the second.
    subject.discord.sendSlashCommand({
      name: 'title',
      channelId: threadId,
      options: { title: 'Launch plan' },
    });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(threadId)
        .find((message) => message.content.includes('named this thread “Launch plan”')),
    );
    expect(subject.discord.channel(threadId)?.name).toBe('Launch plan');

    subject.discord.sendSlashCommand({ name: 'title', channelId: threadId, options: { title: 'Third try' } });
    const refusal = await subject.discord.waitFor(() =>
      subject
        .botMessages(threadId)
        .find((message) =>
          message.content.includes('two renames of a thread per ten minutes, and they are used up'),
        ),
    );
    expect(refusal.flags & 64).toBe(64);
    expect(subject.discord.channel(threadId)?.name).toBe('Launch plan');
    // Two renames reached Discord, and no 429 was ever served.
    expect(subject.discord.requests.filter((call) => call.route === 'channel-modify')).toHaveLength(2);
    expect(subject.discord.rateLimitHits.total).toBe(0);
  });

  it('writes the title from what is within HISTORY_RETENTION_DAYS, before the sweep removed the rest', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'thread', HISTORY_RETENTION_DAYS: '30' });
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Sure.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Written by the model' }) });
    const threadId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'plan the launch, code word PELICAN',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() => subject.discord.channel(threadId)?.name === 'Written by the model');
    // The first exchange, made 45 days old: past the retention, not yet swept.
    const key = conversationKeyOf({
      platform: 'discord',
      workspace: subject.discord.guildId,
      channel: general,
      thread: threadId,
    });
    const firstExchange = await subject.app.history.load(key);
    expect(firstExchange).toHaveLength(2);
    const longAgo = new Date(Date.now() - 45 * 24 * 60 * 60_000).toISOString();
    await subject.app.history.reset(key);
    await subject.app.history.append(
      key,
      firstExchange.map((turn) => ({ ...turn, createdAt: longAgo })),
    );
    subject.gateway.enqueue({ text: 'Ferry booked.' });
    subject.discord.sendUserMessage({ channelId: threadId, content: 'book the ferry to HARBOURNINE' });
    await subject.discord.waitFor(() =>
      subject.botMessages(threadId).find((message) => message.content === 'Ferry booked.'),
    );

    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Ferry booking' }) });
    subject.discord.sendSlashCommand({ name: 'title', channelId: threadId, options: {} });
    await subject.discord.waitFor(() => subject.discord.channel(threadId)?.name === 'Ferry booking');
    const titleRequest = JSON.stringify(chatRequests(subject).at(-1)?.body);
    expect(titleRequest).toContain('HARBOURNINE');
    expect(titleRequest).not.toContain('PELICAN');
  });

  it('says there is no thread to rename in a channel', async () => {
    const subject = await start();
    subject.discord.sendSlashCommand({
      name: 'title',
      channelId: subject.generalChannelId,
      options: { title: 'x' },
    });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content === 'There is no thread here to rename.'),
    );
  });
});

describe('/help on Discord', () => {
  it('describes the reply mode, titles, the message actions and the user install', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'thread' });
    const general = subject.generalChannelId;
    subject.discord.sendSlashCommand({ name: 'help', channelId: general });
    const help = await subject.discord.waitFor(() => {
      const text = subject
        .botMessages(general)
        .filter((message) => (message.flags & 128) === 0)
        .map((message) => message.content)
        .join('\n');
      return text.includes('Default model') && text.includes('On Discord') ? text : undefined;
    });
    expect(help).toContain('a mention opens a thread from your message');
    expect(help).toContain('`/title`');
    expect(help).toContain('**Ask parley about this**');
    expect(help).toContain('**Summarize from here**');
    expect(help).toContain('**Extract data**');
    expect(help).toContain('Install parley for yourself');
  });
});

describe('thread titles and budgets', () => {
  it('keeps the question’s first words when the asker’s budget cannot pay for a title', async () => {
    // A chat reply of at most 50 tokens fits in 400 a day; a title's worst case (four requests) does not.
    const subject = await start({
      DISCORD_REPLY_MODE: 'thread',
      REPLY_MAX_TOKENS: '50',
      BUDGET_TOKENS_USER_DAILY: '400',
    });
    subject.gateway.enqueue({ text: 'Short answer.' });
    const threadId = subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'why is the sky blue?',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() =>
      subject.botMessages(threadId).find((message) => message.content === 'Short answer.'),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(subject.discord.channel(threadId)?.name).toBe('why is the sky blue?');
    expect(chatRequests(subject)).toHaveLength(1);
    expect(subject.discord.requests.filter((call) => call.route === 'channel-modify')).toHaveLength(0);
  });
});

describe('a rename Discord refuses', () => {
  it('answers "try again later" at once instead of waiting out a ten-minute 429', async () => {
    const subject = await start({ DISCORD_REPLY_MODE: 'thread' });
    subject.gateway.enqueue({ text: 'Okay.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'First title' }) });
    const threadId = subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'a question',
      mentionsBot: true,
    });
    await subject.discord.waitFor(() => subject.discord.channel(threadId)?.name === 'First title');
    // Renames parley did not count (a person's, say) have used up Discord's budget.
    subject.discord.forceRateLimit({ route: 'channel-modify', retryAfterMs: 9 * 60_000 });
    const startedAtMs = Date.now();
    subject.discord.sendSlashCommand({ name: 'title', channelId: threadId, options: { title: 'Second' } });
    const refusal = await subject.discord.waitFor(() =>
      subject.botMessages(threadId).find((message) => /Try again in (9|10) minutes/.test(message.content)),
    );
    expect(refusal.flags & 64).toBe(64);
    expect(Date.now() - startedAtMs).toBeLessThan(3_000);
    expect(subject.discord.channel(threadId)?.name).toBe('First title');
  });
});
