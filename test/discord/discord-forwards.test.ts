import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

// A forward carries no content of its own: what it says is in `message_snapshots`
// (resources/message.mdx, "Message Reference Content Attribution", Forwards).
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

const chatRequestBodies = (subject: DiscordUnderTest) =>
  subject.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => JSON.stringify(request.body));

const summary = {
  title: 'Outage talk',
  tldr: 'The cache was full.',
  keyPoints: ['cache full'],
  decisions: [],
  actionItems: [],
  openQuestions: [],
};

describe('forwarded messages on Discord', () => {
  it('a forward in a DM is the turn: the forwarded text and its file reach the model', async () => {
    under = await startDiscordUnderTest();
    const subject = under;
    const originalId = subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'Error: cache is full (ENOSPC) at 03:12',
      attachments: [
        {
          filename: 'trace.txt',
          contentType: 'text/plain',
          bytes: new TextEncoder().encode('stack trace here'),
        },
      ],
    });
    const dm = subject.discord.directMessageChannel();
    subject.gateway.enqueue({ text: 'The disk under the cache filled up.' });
    subject.discord.forwardMessage({ messageId: originalId, channelId: dm });
    await subject.discord.waitFor(() =>
      subject.botMessages(dm).find((message) => message.content === 'The disk under the cache filled up.'),
    );
    const request = chatRequestBodies(subject)[0] ?? '';
    expect(request).toContain('Forwarded message:');
    expect(request).toContain('Error: cache is full (ENOSPC) at 03:12');
    expect(request).toContain('stack trace here');
  });

  it('"Ask parley about this" on a forward asks about the forwarded text', async () => {
    under = await startDiscordUnderTest();
    const subject = under;
    const [general, random] = subject.discord.textChannelIds as [string, string];
    const originalId = subject.discord.sendUserMessage({ channelId: random, content: 'p99 went to 4 s' });
    const forwardId = subject.discord.forwardMessage({ messageId: originalId, channelId: general });
    const commandId = subject.discord.sendMessageCommand({
      name: 'Ask parley about this',
      messageId: forwardId,
    });
    await subject.discord.waitFor(() =>
      subject.discord.interactionResponses(commandId).find((response) => response.type === 9),
    );
    subject.gateway.enqueue({ text: 'Latency rose.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Latency' }) });
    subject.discord.submitModal({ interactionId: commandId, values: { question: 'is this bad?' } });
    await subject.discord.waitFor(() =>
      subject.botMessages(forwardId).find((message) => message.content === 'Latency rose.'),
    );
    expect(chatRequestBodies(subject)[0]).toContain('p99 went to 4 s');
  });

  it('/summarize reads a forward in the channel history as its forwarded text', async () => {
    under = await startDiscordUnderTest();
    const subject = under;
    const [general, random] = subject.discord.textChannelIds as [string, string];
    const originalId = subject.discord.sendUserMessage({
      channelId: random,
      content: 'root cause: the cache volume was full',
    });
    subject.discord.sendUserMessage({ channelId: general, content: 'what happened last night?' });
    const forwardId = subject.discord.forwardMessage({ messageId: originalId, channelId: general });
    subject.gateway.enqueue({ text: JSON.stringify(summary) });
    subject.discord.sendMessageCommand({ name: 'Summarize from here', messageId: forwardId });
    await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => JSON.stringify(message).includes('Outage talk')),
    );
    expect(chatRequestBodies(subject)[0]).toContain('root cause: the cache volume was full');
  });
});
