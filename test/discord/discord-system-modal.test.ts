import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

describe('/system on Discord', () => {
  it('opens a modal with the current prompt for someone who may change it, and saves a multi-line prompt', async () => {
    const subject = await startDiscordUnderTest({ SETTINGS_EDITORS: 'everyone' });
    under = subject;
    const general = subject.generalChannelId;
    const commandId = subject.discord.sendSlashCommand({ name: 'system', channelId: general });
    const modal = await subject.discord.waitFor(() =>
      subject.discord.interactionResponses(commandId).find((response) => response.type === 9),
    );
    // The modal is the first response: no "thinking…" before it.
    expect(subject.discord.interactionResponses(commandId)).toHaveLength(1);
    expect(modal.data?.title).toBe('System prompt');
    expect(JSON.stringify(modal.data)).toContain('You are parley');

    const prompt = 'You are a pirate.\nAnswer in two lines.\nNever use emoji.';
    subject.discord.submitModal({ interactionId: commandId, values: { prompt } });
    const saved = await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content.startsWith('Saved:')),
    );
    expect(saved.flags & 64).toBe(64);

    subject.gateway.enqueue({ text: 'Arr.' });
    subject.discord.sendUserMessage({ channelId: general, content: 'hello', mentionsBot: true });
    await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content === 'Arr.'),
    );
    const request = subject.gateway.requests.find((entry) => entry.path.endsWith('/chat/completions'));
    const body = request?.body as { messages: Array<{ role: string; content: string }> } | undefined;
    expect(body?.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(prompt) });
  });

  it('still takes a one-line prompt as an option, and shows the prompt to someone who may not change it', async () => {
    const subject = await startDiscordUnderTest();
    under = subject;
    const general = subject.generalChannelId;
    const commandId = subject.discord.sendSlashCommand({ name: 'system', channelId: general });
    await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content.includes('system prompt:')),
    );
    expect(subject.discord.interactionResponses(commandId)[0]?.type).toBe(5);
  });
});
