import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest({}, { fakeDiscord: { isMessageContentIntentEnabled: false } });
});
afterEach(() => under?.close());

const general = () => under.generalChannelId;
const botMessages = (channelId: string) => under.botMessages(channelId);
const chatRequestCount = () =>
  under.gateway.requests.filter((request) => request.path.endsWith('/chat/completions')).length;
const warningsAbout = (text: string) =>
  under
    .logOutput()
    .split('\n')
    .filter((line) => line.includes('"level":40') && line.includes(text));

describe('Discord without the Message Content intent', () => {
  it('comes up without it, says once how to turn it on, and still answers mentions, replies and DMs', async () => {
    expect(under.discord.identifiedSessionCount).toBe(1);
    const warnings = warningsAbout('Message Content Intent');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Developer Portal');

    under.gateway.enqueue({ text: 'Heard you.' });
    under.discord.sendUserMessage({ channelId: general(), content: 'are you there?', mentionsBot: true });
    const answer = await under.discord.waitFor(() =>
      botMessages(general()).find((message) => message.content === 'Heard you.'),
    );

    under.gateway.enqueue({ text: 'Replies reach me too.' });
    under.discord.sendUserMessage({
      channelId: general(),
      content: 'and this?',
      replyToMessageId: answer.id,
    });
    await under.discord.waitFor(() =>
      botMessages(general()).find((message) => message.content === 'Replies reach me too.'),
    );
    const lastQuestion = under.gateway.requests.at(-1)?.body as { messages: { content: string }[] };
    expect(lastQuestion.messages.at(-1)?.content).toMatch(/and this\?$/);

    under.gateway.enqueue({ text: 'DMs as well.' });
    const dm = under.discord.directMessageChannel();
    under.discord.sendUserMessage({ channelId: dm, content: 'psst' });
    await under.discord.waitFor(() => botMessages(dm).find((message) => message.content === 'DMs as well.'));
  });

  it('leaves alone the messages it cannot read, rather than answering an empty one', async () => {
    const thread = under.discord.threadId;
    under.gateway.enqueue({ text: 'Started here.' });
    under.discord.sendUserMessage({ channelId: thread, content: 'start', mentionsBot: true });
    await under.discord.waitFor(() =>
      botMessages(thread).find((message) => message.content === 'Started here.'),
    );
    const requestsBefore = chatRequestCount();

    // In a thread it answered in, a message without a mention arrives with empty content.
    under.discord.sendUserMessage({ channelId: thread, content: 'what about this?' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(chatRequestCount()).toBe(requestsBefore);
    expect(botMessages(thread)).toHaveLength(1);
  });

  it('runs commands, and /help says what is missing and how to turn it on', async () => {
    under.discord.sendSlashCommand({ name: 'help', channelId: general() });
    // /help may take several messages (2,000 characters each): the notice is in one of them.
    const helpText = () =>
      botMessages(general())
        .map((message) => message.content)
        .join('\n');
    const help = await under.discord.waitFor(
      () =>
        // The command list, after Discord's own /help lines (which name /imagine too).
        /Default model[\s\S]*Developer Portal|Developer Portal[\s\S]*Default model/.test(helpText()) &&
        helpText(),
    );
    expect(help).toContain('Message Content Intent');
    expect(help).toContain('Developer Portal');
  });
});
