import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest();
});
afterEach(() => under.close());

const general = () => under.generalChannelId;
const botMessages = (channelId: string) => under.botMessages(channelId);
const chatRequestCount = () =>
  under.gateway.requests.filter((request) => request.path.endsWith('/chat/completions')).length;

describe('private threads on Discord', () => {
  it('answers in a private thread it was added to, and keeps following it', async () => {
    const threadId = under.discord.createThread({
      parentId: general(),
      name: 'planning',
      isPrivate: true,
      memberIds: [under.discord.user.id, under.discord.bot.id],
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    under.gateway.enqueue({ text: 'Here, in private.' });
    under.discord.sendUserMessage({ channelId: threadId, content: 'can you help?', mentionsBot: true });
    await under.discord.waitFor(() =>
      botMessages(threadId).find((message) => message.content === 'Here, in private.'),
    );
    under.gateway.enqueue({ text: 'Still here.' });
    under.discord.sendUserMessage({ channelId: threadId, content: 'and then?' });
    await under.discord.waitFor(() =>
      botMessages(threadId).find((message) => message.content === 'Still here.'),
    );
  });

  it('sees nothing of a private thread it is not in, and says how to let it in when asked to read one', async () => {
    const threadId = under.discord.createThread({
      parentId: general(),
      name: 'secret',
      isPrivate: true,
      memberIds: [under.discord.user.id],
    });
    under.discord.sendUserMessage({ channelId: threadId, content: 'psst', mentionsBot: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(chatRequestCount()).toBe(0);

    // Commands still reach it there: interactions do not need the bot to see the channel.
    under.discord.sendSlashCommand({ name: 'summarize', channelId: threadId, options: { messages: 10 } });
    const answer = await under.discord.waitFor(() =>
      botMessages(threadId).find((message) => message.content.startsWith('⚠')),
    );
    expect(answer.content).toBe(
      '⚠ I cannot see this channel. If it is a private thread, add me to it (mention me in it, or use "Add members"), then ask again.',
    );
    expect(answer.flags & 64).toBe(64);
  });
});
