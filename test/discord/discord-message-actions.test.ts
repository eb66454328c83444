import { afterEach, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { textOfMessage } from '../support/discord-slash-command.ts';
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

/**
 * A person's own install reaches global commands only: no DISCORD_GUILD_IDS; and the owner serves
 * user installs (ACCESS_USER_INSTALLS, off by default).
 */
const globalCommands = { DISCORD_GUILD_IDS: '', ACCESS_USER_INSTALLS: 'on' };

const chatRequestBodies = (subject: DiscordUnderTest) =>
  subject.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => JSON.stringify(request.body));

/** Waits for the modal the bot answered a message command with (callback type 9). */
async function modalOf(subject: DiscordUnderTest, interactionId: string) {
  return subject.discord.waitFor(() =>
    subject.discord.interactionResponses(interactionId).find((response) => response.type === 9),
  );
}

const summary = {
  title: 'Launch talk',
  tldr: 'They agreed on Friday.',
  keyPoints: ['Friday it is'],
  decisions: ['Ship Friday'],
  actionItems: [],
  openQuestions: [],
};

describe('message actions on Discord', () => {
  it('"Ask parley about this" opens a modal, then answers in a thread from the message with its text as context', async () => {
    const subject = await start();
    const general = subject.generalChannelId;
    const messageId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'The deploy failed with exit code 137.',
    });
    const commandId = subject.discord.sendMessageCommand({ name: 'Ask parley about this', messageId });
    const modal = await modalOf(subject, commandId);
    expect(modal.data?.title).toBe('Ask parley about this message');

    subject.gateway.enqueue({ text: 'Exit code 137 means the process was killed, usually out of memory.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Exit code 137' }) });
    const submitId = subject.discord.submitModal({
      interactionId: commandId,
      values: { question: 'what does this mean?' },
    });

    // The thread takes the message's id; the person is told where the answer is, privately.
    const answer = await subject.discord.waitFor(() =>
      subject.botMessages(messageId).find((message) => message.content.startsWith('Exit code 137 means')),
    );
    expect(answer).toBeDefined();
    const pointer = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.interactionId === submitId),
    );
    expect(pointer.content).toBe(`Answering in <#${messageId}>.`);
    expect(pointer.flags & 64).toBe(64);
    expect(chatRequestBodies(subject)[0]).toContain('what does this mean?');
    expect(chatRequestBodies(subject)[0]).toContain('exit code 137');
    await subject.discord.waitFor(() => subject.discord.channel(messageId)?.name === 'Exit code 137');
  });

  it('"Ask parley about this" gives the model the message’s image too', async () => {
    const subject = await start();
    const general = subject.generalChannelId;
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 10, green: 200, blue: 10 } });
    const messageId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'look at this',
      attachments: [{ filename: 'green.png', contentType: 'image/png', bytes: png }],
    });
    const commandId = subject.discord.sendMessageCommand({ name: 'Ask parley about this', messageId });
    await modalOf(subject, commandId);
    subject.gateway.enqueue({ text: 'Green.' });
    subject.discord.submitModal({ interactionId: commandId, values: { question: 'what colour?' } });
    await subject.discord.waitFor(() =>
      subject.botMessages(messageId).find((message) => message.content === 'Green.'),
    );
    const body = subject.gateway.requests.find((request) => request.path.endsWith('/chat/completions'))
      ?.body as {
      model: string;
      messages: Array<{ content: unknown }>;
    };
    expect(body.model).toBe('vision-model');
    expect(JSON.stringify(body.messages.at(-1)?.content)).toContain(
      `data:image/png;base64,${Buffer.from(png).toString('base64')}`,
    );
  });

  it('answers through the interaction, saying why, where it cannot open a thread (a user install)', async () => {
    const subject = await start(globalCommands);
    const general = subject.generalChannelId;
    // The person's own install in a channel the bot cannot see: it may answer only through the interaction.
    subject.discord.denyBotPermissions(general, ['view-channel']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const messageId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'Meet at 10 by the lake.',
    });
    const commandId = subject.discord.sendMessageCommand({
      name: 'Ask parley about this',
      messageId,
      installation: 'user',
    });
    await modalOf(subject, commandId);
    subject.gateway.enqueue({ text: 'At ten, by the lake.' });
    const submitId = subject.discord.submitModal({
      interactionId: commandId,
      values: { question: 'when and where?' },
    });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(general)
        .find((message) => message.interactionId === submitId && message.content === 'At ten, by the lake.'),
    );
    const note = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content.includes('cannot open a thread')),
    );
    expect(note.flags & 64).toBe(64);
    expect(subject.discord.channel(messageId)).toBeUndefined();
    // Nothing was posted as the bot itself: every message came through the interaction.
    expect(subject.botMessages(general).every((message) => message.interactionId !== null)).toBe(true);
  });

  it('"Summarize from here" reads that message and the later ones, not the earlier', async () => {
    const subject = await start();
    const general = subject.generalChannelId;
    subject.discord.sendUserMessage({ channelId: general, content: 'an earlier topic entirely' });
    const fromId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'shall we ship on Friday?',
    });
    subject.discord.sendUserMessage({ channelId: general, content: 'yes, Friday works' });
    subject.gateway.enqueue({ text: JSON.stringify(summary) });
    subject.discord.sendMessageCommand({ name: 'Summarize from here', messageId: fromId });
    const card = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => textOfMessage(message).includes('### Launch talk')),
    );
    expect(card).toBeDefined();
    const request = chatRequestBodies(subject)[0] ?? '';
    expect(request).toContain('shall we ship on Friday?');
    expect(request).toContain('yes, Friday works');
    expect(request).not.toContain('an earlier topic entirely');
  });

  it('"Extract data" extracts from the message’s text into /extract’s card', async () => {
    const subject = await start();
    const general = subject.generalChannelId;
    const messageId = subject.discord.sendUserMessage({
      channelId: general,
      content: 'Invoice 42: 3 chairs at 40 EUR, due March 1',
    });
    subject.gateway.enqueue({
      text: JSON.stringify({
        title: 'Invoice 42',
        summary: 'Three chairs.',
        fields: [{ name: 'Due', value: 'March 1' }],
        table: null,
      }),
    });
    subject.discord.sendMessageCommand({ name: 'Extract data', messageId });
    const card = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => textOfMessage(message).includes('### Invoice 42')),
    );
    expect(card).toBeDefined();
    expect(chatRequestBodies(subject)[0]).toContain('3 chairs at 40 EUR');
  });
});

describe('a person’s own install on Discord (a server without the bot)', () => {
  it('a user install is not served unless the owner says so: /chat there is refused, privately, with no model call', async () => {
    const subject = await start({ DISCORD_GUILD_IDS: '' });
    const elsewhere = subject.discord.createGuildWithoutBot();
    const chatId = subject.discord.sendSlashCommand({
      name: 'chat',
      channelId: elsewhere.channelId,
      options: { prompt: 'hi there' },
      installation: 'user',
    });
    const refusal = await subject.discord.waitFor(() =>
      subject
        .botMessages(elsewhere.channelId)
        .find((message) => message.interactionId === chatId && message.content !== ''),
    );
    expect(refusal.content).toContain('its owner does not serve it where it is only installed for you');
    expect(refusal.flags & 64).toBe(64);
    expect(subject.gateway.requests).toEqual([]);
  });

  it('/chat answers through the interaction, and /summarize says what it cannot read', async () => {
    const subject = await start(globalCommands);
    const elsewhere = subject.discord.createGuildWithoutBot();
    subject.gateway.enqueue({ text: 'Hello from your own install.' });
    const chatId = subject.discord.sendSlashCommand({
      name: 'chat',
      channelId: elsewhere.channelId,
      options: { prompt: 'hi there' },
      installation: 'user',
    });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(elsewhere.channelId)
        .find(
          (message) => message.interactionId === chatId && message.content === 'Hello from your own install.',
        ),
    );
    subject.discord.sendSlashCommand({
      name: 'summarize',
      channelId: elsewhere.channelId,
      installation: 'user',
    });
    const refusal = await subject.discord.waitFor(() =>
      subject
        .botMessages(elsewhere.channelId)
        .find((message) => message.content.includes('installed for you')),
    );
    expect(refusal.content).toContain('Ask parley about this');
    // Every message there came through an interaction; none was posted as the bot.
    expect(subject.botMessages(elsewhere.channelId).every((message) => message.interactionId !== null)).toBe(
      true,
    );
  });

  it('a command a server install only offers (/config) is not offered to a person’s own install', async () => {
    const subject = await start(globalCommands);
    await subject.discord.waitFor(() => subject.discord.registeredCommands().length > 0);
    const elsewhere = subject.discord.createGuildWithoutBot();
    expect(() =>
      subject.discord.sendSlashCommand({
        name: 'config',
        channelId: elsewhere.channelId,
        installation: 'user',
      }),
    ).toThrow(/not offered to a user install/);
  });
});
