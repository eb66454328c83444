import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest();
});
afterEach(() => under.close());

const botMessages = (channelId: string) => under.botMessages(channelId);
type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };
const chatBodies = () =>
  under.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const general = () => under.generalChannelId;
const labelsOf = (components: unknown[]): string[] => [
  ...(JSON.stringify(components).match(/"label":"[^"]+"/g) ?? []),
];

describe('chatting on Discord', () => {
  it('answers a mention with a streamed reply: posted on the first text, edited, exact at the end', async () => {
    const text =
      'Hello! This answer streams in small pieces so that Discord sees several edits before it is done.';
    under.gateway.enqueue({ text, chunkSize: 8, delayBetweenChunksMs: 120 });
    const questionId = under.discord.sendUserMessage({
      channelId: general(),
      content: 'hi there',
      mentionsBot: true,
    });
    const reply = await under.discord.waitFor(
      () =>
        botMessages(general()).find(
          (message) =>
            message.content === text && labelsOf(message.components).includes('"label":"Regenerate"'),
        ),
      { timeoutMs: 10_000 },
    );
    expect(reply.replyToMessageId).toBe(questionId);
    expect(reply.revisions.length).toBeGreaterThan(2);
    expect(reply.revisions[0]?.content.length).toBeLessThan(text.length);
    expect(labelsOf(reply.components)).toEqual(['"label":"Regenerate"']);
    expect(chatBodies()[0]?.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(String(chatBodies()[0]?.messages.at(-1)?.content)).toMatch(/: hi there$/);
    expect(under.discord.rateLimitHits).toMatchObject({ total: 0 });
  });

  it('ignores messages that do not mention it, and its own', async () => {
    under.discord.sendUserMessage({ channelId: general(), content: 'just people talking' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(botMessages(general())).toEqual([]);
    expect(chatBodies()).toEqual([]);
  });

  it('resolves mentions of people to their names', async () => {
    const grace = under.discord.createUser({ username: 'grace', globalName: 'Grace' });
    under.discord.sendUserMessage({
      channelId: general(),
      content: `ask <@${grace.id}> about it`,
      mentionsBot: true,
      mentions: [grace.id],
    });
    await under.discord.waitFor(() => chatBodies()[0]);
    expect(String(chatBodies()[0]?.messages.at(-1)?.content)).toMatch(/ask @Grace about it$/);
  });

  it('splits a reply over 2,000 characters into several messages with the code block intact', async () => {
    const code = Array.from(
      { length: 60 },
      (_, index) => `const value${index} = compute(${index}); // step ${index}`,
    ).join('\n');
    const text = `Here is the program:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
    under.gateway.enqueue({ text, chunkSize: 200 });
    under.discord.sendUserMessage({ channelId: general(), content: 'write code', mentionsBot: true });
    // Delivery posts the next message before the final edit of the previous one, so wait until the
    // whole program is on screen.
    const everyLine = Array.from({ length: 60 }, (_, index) => `const value${index} = compute(${index});`);
    const messages = await under.discord.waitFor(
      () => {
        const replies = botMessages(general());
        const shown = replies.map((message) => message.content).join('');
        return shown.endsWith('That is all.') && everyLine.every((line) => shown.includes(line))
          ? replies
          : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) {
      expect(message.content.length).toBeLessThanOrEqual(2_000);
      expect((message.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(messages[1]?.content.startsWith('```ts\n')).toBe(true);
  });

  it('sends an attached image to the vision model as a data: URI', async () => {
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 200, green: 10, blue: 10 } });
    under.discord.sendUserMessage({
      channelId: general(),
      content: 'what colour is this?',
      mentionsBot: true,
      attachments: [{ filename: 'red.png', contentType: 'image/png', bytes: png }],
    });
    const body = await under.discord.waitFor(() => chatBodies()[0]);
    expect(body.model).toBe('vision-model');
    expect(body.messages.at(-1)?.content).toEqual([
      { type: 'text', text: expect.stringMatching(/what colour is this\?$/) },
      {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${Buffer.from(png).toString('base64')}` },
      },
    ]);
  });

  it('says in the channel, in one short line, when the gateway fails', async () => {
    under.gateway.enqueue({ error: { status: 401 } });
    under.discord.sendUserMessage({ channelId: general(), content: 'hello?', mentionsBot: true });
    const reply = await under.discord.waitFor(
      () => botMessages(general())[0]?.content.includes('API key') && botMessages(general())[0],
    );
    expect(reply.content).toBe(
      '_⚠ The model service rejected our API key. An admin needs to check GATEWAY_API_KEY._',
    );
    expect(under.logOutput()).not.toContain('discord-e2e-gateway-key');
  });

  it('answers in DMs without a mention', async () => {
    under.gateway.enqueue({ text: 'Hi in private.' });
    const dm = under.discord.directMessageChannel();
    under.discord.sendUserMessage({ channelId: dm, content: 'psst' });
    const reply = await under.discord.waitFor(() =>
      botMessages(dm).find((message) => message.content === 'Hi in private.'),
    );
    expect(reply.content).toBe('Hi in private.');
  });

  it('keeps answering in a thread it answered in, and when someone replies to it', async () => {
    const thread = under.discord.threadId;
    under.gateway.enqueue({ text: 'First answer in the thread.' });
    under.discord.sendUserMessage({ channelId: thread, content: 'start', mentionsBot: true });
    const first = await under.discord.waitFor(() =>
      botMessages(thread).find((message) => message.content === 'First answer in the thread.'),
    );
    under.gateway.enqueue({ text: 'Second answer, no mention needed.' });
    under.discord.sendUserMessage({ channelId: thread, content: 'and then?' });
    await under.discord.waitFor(() =>
      botMessages(thread).find((message) => message.content === 'Second answer, no mention needed.'),
    );
    expect(chatBodies()[1]?.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);

    under.gateway.enqueue({ text: 'Answer to a reply.' });
    under.discord.sendUserMessage({
      channelId: general(),
      content: 'about that',
      replyToMessageId: first.id,
    });
    // A reply in another channel to the bot's message is answered in that channel.
    await under.discord.waitFor(() =>
      botMessages(general()).find((message) => message.content === 'Answer to a reply.'),
    );
  });

  it('Stop cancels a streaming reply and keeps its text', async () => {
    under.gateway.enqueue({
      text: 'one two three four five six seven eight nine ten eleven twelve',
      chunkSize: 4,
      delayBetweenChunksMs: 150,
    });
    under.discord.sendUserMessage({ channelId: general(), content: 'count', mentionsBot: true });
    const streaming = await under.discord.waitFor(() =>
      botMessages(general()).find((message) => labelsOf(message.components).includes('"label":"Stop"')),
    );
    const stopId =
      JSON.stringify(streaming.components).match(/"custom_id":"([^"]*chat\.stop[^"]*)"/)?.[1] ?? '';
    under.discord.clickButton({ messageId: streaming.id, customId: stopId });
    const stopped = await under.discord.waitFor(
      () =>
        under.discord.message(streaming.id)?.content.includes('reply cut off: Stopped.') &&
        under.discord.message(streaming.id),
    );
    expect(stopped.content).toMatch(/^one .*\n\n_⚠ reply cut off: Stopped\._$/s);
    expect(stopped.content).not.toContain('twelve');
  });

  it('completes, in order, when Discord answers an edit with 429 and Retry-After', async () => {
    const text = 'A reply that needs a few edits to arrive, even when Discord pushes back once.';
    under.gateway.enqueue({ text, chunkSize: 10, delayBetweenChunksMs: 100 });
    under.discord.forceRateLimit({ route: 'message-edit', count: 1, retryAfterMs: 500 });
    under.discord.sendUserMessage({ channelId: general(), content: 'go', mentionsBot: true });
    const reply = await under.discord.waitFor(
      () => botMessages(general()).find((message) => message.content === text),
      { timeoutMs: 10_000 },
    );
    expect(under.discord.rateLimitHits.total).toBe(1);
    const lengths = reply.revisions.map((revision) => revision.content.length);
    expect([...lengths].sort((first, second) => first - second)).toEqual(lengths);
  });

  it('tells the person in a DM, once, when it may not post where it was asked', async () => {
    under.discord.denyBotPermissions(general(), ['send-messages']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    under.discord.sendUserMessage({ channelId: general(), content: 'hello?', mentionsBot: true });
    under.discord.sendUserMessage({ channelId: general(), content: 'anyone?', mentionsBot: true });
    const dmChannel = under.discord.directMessageChannel();
    const notice = await under.discord.waitFor(() => botMessages(dmChannel)[0]);
    expect(notice.content).toMatch(
      /^I saw your message in #\S+, but I may not post there \(I need the \*\*Send Messages\*\* permission\)/,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(botMessages(dmChannel)).toHaveLength(1);
    expect(botMessages(general())).toEqual([]);
    expect(chatBodies()).toEqual([]);
  });

  it('answers without Read Message History as a plain message, since a reply needs that permission', async () => {
    under.discord.denyBotPermissions(general(), ['read-message-history']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    under.gateway.enqueue({ text: 'Answered all the same.' });
    under.discord.sendUserMessage({ channelId: general(), content: 'hello?', mentionsBot: true });
    const reply = await under.discord.waitFor(() =>
      botMessages(general()).find((message) => message.content === 'Answered all the same.'),
    );
    expect(reply.replyToMessageId).toBeNull();
    // Checked before sending: no refused request counts towards Discord's invalid-request limit.
    expect(under.discord.requests.filter((call) => call.status === 403)).toEqual([]);
  });

  it('says plainly when it may not attach files', async () => {
    under.discord.denyBotPermissions(general(), ['attach-files']);
    under.discord.sendSlashCommand({ name: 'imagine', channelId: general(), options: { prompt: 'a fox' } });
    // Interaction responses do not need the channel permission, so the image still arrives there.
    const withFile = await under.discord.waitFor(() =>
      botMessages(general()).find((message) => message.attachments.length > 0),
    );
    expect(withFile.attachments[0]?.filename).toMatch(/^parley-a-fox-1\.png$/);
  });
});
