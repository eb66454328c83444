import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../fakes/discord/index.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { askAndWait } from './ask-on-discord.ts';

/**
 * Memory people control, on Discord end to end: the model keeps a note through the remember tool,
 * the note reaches later replies as a bounded block of the system prompt, /memory shows it with
 * Forget buttons only its owner can use, and nothing that looks like a secret is ever kept.
 */
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

type ChatBody = {
  tools?: Array<{ function: { name: string } }>;
  messages: Array<{ role: string; content: unknown }>;
};
const chatBodies = (subject: DiscordUnderTest) =>
  subject.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);

const customIdOf = (message: FakeMessage, label: string) =>
  new RegExp(`"label":"${label}"[^}]*"custom_id":"([^"]+)"|"custom_id":"([^"]+)"[^}]*"label":"${label}"`)
    .exec(JSON.stringify(message.components ?? []))
    ?.slice(1)
    .find((id) => id !== undefined) ?? '';

describe('memory', () => {
  it('keeps a note the model was asked to keep, gives it to later replies, and lets only its owner forget it', async () => {
    const subject = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model', MEMORY: 'user' });
    under = subject;
    const mallory = subject.discord.createUser({ username: 'mallory' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    subject.gateway.enqueue({
      toolCalls: [{ name: 'remember', arguments: { text: 'Prefers tea to coffee.' } }],
    });
    subject.gateway.enqueue({ text: 'Noted: tea.' });
    await askAndWait(subject, 'remember that I prefer tea to coffee', 'Noted: tea.');
    expect(chatBodies(subject)[0]?.tools?.map((tool) => tool.function.name)).toEqual(['remember', 'forget']);

    subject.gateway.enqueue({ text: 'Tea, then (from memory).' });
    await askAndWait(subject, 'what should I drink?', 'Tea, then');
    const system = String(chatBodies(subject).at(-1)?.messages[0]?.content);
    expect(system).toMatch(
      /What you remember from earlier conversations[\s\S]*\] \d{4}-\d\d-\d\d, about \w+: Prefers tea to coffee\./,
    );

    subject.discord.sendSlashCommand({ name: 'memory', channelId: subject.generalChannelId });
    const listing = await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.includes('What parley remembers about you')),
    );
    expect(listing.flags & 64).toBe(64);
    expect(listing.content).toContain('Prefers tea to coffee.');
    const forgetAll = customIdOf(listing, 'Forget all');
    subject.discord.clickButton({ messageId: listing.id, customId: forgetAll, user: mallory.id });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.includes('Only the person these notes are about')),
    );
    subject.discord.clickButton({ messageId: listing.id, customId: forgetAll });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.includes('Forgotten: 1 note')),
    );
    subject.gateway.enqueue({ text: 'No idea.' });
    await askAndWait(subject, 'what do I drink?', 'No idea.');
    expect(String(chatBodies(subject).at(-1)?.messages[0]?.content)).not.toContain('Prefers tea');
  });

  it('never keeps something that looks like a secret, and is not offered where memory is off', async () => {
    const subject = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model', MEMORY: 'user' });
    under = subject;
    // The log scrubber's old shape, and two it never knew (issue 34): the secret detector's.
    const secrets = [
      'Her API key is sk-abcdefghijklmnopqrstuvwx',
      'Her GitHub token is ghp_R2d2C3poX9wingK7Jedi0Falcon4Tatooine',
      'Her Wi-Fi password: correct-horse-battery',
    ];
    subject.gateway.enqueue({
      toolCalls: secrets.map((text) => ({ name: 'remember', arguments: { text } })),
    });
    subject.gateway.enqueue({ text: 'I will not keep that.' });
    await askAndWait(subject, 'remember my keys', 'I will not keep that.');
    const toolMessages = chatBodies(subject)[1]?.messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toHaveLength(secrets.length);
    for (const toolMessage of toolMessages ?? []) {
      expect(String(toolMessage.content)).toContain('Not kept: it looks like a password, token or key');
    }
    await subject.close();

    const off = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model' });
    under = off;
    off.gateway.enqueue({ text: 'Plain.' });
    await askAndWait(off, 'remember this', 'Plain.');
    expect(chatBodies(off)[0]?.tools).toBeUndefined();
  });
});
