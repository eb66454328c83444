import { afterEach, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { RecordedRequest } from '../fakes/gateway/request-handler.ts';
import { startConsoleUnderTest } from '../support/console-under-test.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { askAndWait } from './ask-on-discord.ts';

/**
 * Memory for models without tools, on Discord end to end: `chat-model` has no `tools` in parley's
 * catalog, so it cannot call `remember`; after its reply one held call to the small model
 * (SUMMARY_MODEL) reads what the person said, as JSON the fake gateway answers, and the facts become
 * notes through the same book as the tool, secrets refused.
 */
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

type ChatBody = {
  model: string;
  response_format?: { type: string };
  messages: Array<{ role: string; content: unknown }>;
};
const chatRequests = (subject: DiscordUnderTest) =>
  subject.gateway.requests.filter((request: RecordedRequest) => request.path.endsWith('/chat/completions'));
const bodyOf = (request: RecordedRequest | undefined) => request?.body as ChatBody | undefined;
const isExtraction = (request: RecordedRequest) =>
  bodyOf(request)?.response_format !== undefined && bodyOf(request)?.model === 'cheap-model';

async function memoryListing(subject: DiscordUnderTest) {
  subject.discord.sendSlashCommand({ name: 'memory', channelId: subject.generalChannelId });
  return subject.discord.waitFor(() =>
    subject
      .botMessages(subject.generalChannelId)
      .findLast((message) => /What parley remembers about you|remembers nothing/.test(message.content)),
  );
}

/** A bot whose chat model has no tools, with memory on and a cheap small model to extract. */
async function startWithMemory(): Promise<DiscordUnderTest> {
  under = await startDiscordUnderTest({
    CHAT_MODEL: 'chat-model',
    SUMMARY_MODEL: 'cheap-model',
    MEMORY: 'user',
  });
  return under;
}

describe('held memory extraction for models without tools', () => {
  it('keeps the facts the person stated, read by the small model on a hold, and never a secret', async () => {
    const subject = await startWithMemory();
    subject.gateway.enqueue({ text: 'A fine job, Ada.' });
    subject.gateway.enqueue({
      text: JSON.stringify({
        notes: [
          { text: 'Works as a lighthouse keeper.' },
          { text: 'Her key is sk-abcdefghijklmnopqrstuvwx' },
        ],
      }),
    });
    await askAndWait(
      subject,
      'I work as a lighthouse keeper, my key is sk-abcdefghijklmnopqrstuvwx',
      'A fine job',
    );
    await subject.discord.waitFor(() => chatRequests(subject).find(isExtraction));
    const [reply, extraction] = chatRequests(subject);
    // The reply was offered no tools: the model has none, so the extraction is what keeps memory.
    expect((reply?.body as { tools?: unknown } | undefined)?.tools).toBeUndefined();
    expect(String(bodyOf(reply)?.messages[0]?.content)).toContain('noted for you after each reply');
    const asked = JSON.stringify(bodyOf(extraction)?.messages);
    expect(asked).toContain('I work as a lighthouse keeper');
    // Only what the person said: the reply is not shown to the small model.
    expect(asked).not.toContain('A fine job');
    await subject.discord.waitFor(() =>
      subject.logOutput().includes('an extracted memory note was not kept') ? true : undefined,
    );

    const listing = await memoryListing(subject);
    expect(listing.content).toContain('Works as a lighthouse keeper.');
    expect(listing.content).not.toContain('sk-abcdef');
    subject.gateway.enqueue({ text: 'Lamps (from memory).' });
    subject.gateway.enqueue({ text: JSON.stringify({ notes: [] }) });
    await askAndWait(subject, 'what do I look after?', 'Lamps');
    const system = String(
      bodyOf(
        chatRequests(subject)
          .filter((request) => !isExtraction(request))
          .at(-1),
      )?.messages[0]?.content,
    );
    expect(system).toMatch(/\] \d{4}-\d\d-\d\d, about \w+: Works as a lighthouse keeper\./);
  });

  it('drops a reply that is not the JSON asked for, and the person still has their answer', async () => {
    const subject = await startWithMemory();
    subject.gateway.enqueue({ text: 'Nice to meet you.' });
    // The structured call asks once and repairs once; both answers are not JSON.
    subject.gateway.enqueue({ invalidJson: true });
    subject.gateway.enqueue({ invalidJson: true });
    const ada = subject.discord.createUser({ username: 'ada' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await askAndWait(subject, 'I am Ada and I like sailing', 'Nice to meet you.', ada.id);
    await subject.discord.waitFor(() =>
      subject.logOutput().includes('memory extraction failed or answered something else') ? true : undefined,
    );
    expect(chatRequests(subject).filter(isExtraction)).toHaveLength(2);
    // Held on her budgets like any request of hers: the reply, the extraction and its repair.
    const usage = await subject.services.usage.report({
      userId: ada.id,
      conversationKey: conversationKeyOf({
        platform: 'discord',
        workspace: subject.discord.guildId,
        channel: subject.generalChannelId,
      }),
      at: new Date(),
    });
    expect(usage.user.today.requests).toBe(3);
    const listing = await memoryListing(subject);
    expect(listing.content).not.toContain('sailing');
  });

  it('asks nothing where memory is off, nor for a model that keeps memory through its tools', async () => {
    const off = await startDiscordUnderTest({ CHAT_MODEL: 'chat-model', SUMMARY_MODEL: 'cheap-model' });
    under = off;
    off.gateway.enqueue({ text: 'Hello.' });
    await askAndWait(off, 'I like sailing', 'Hello.');
    off.gateway.enqueue({ text: 'Again.' });
    await askAndWait(off, 'still here', 'Again.');
    expect(chatRequests(off).filter(isExtraction)).toHaveLength(0);
    await off.close();

    const tools = await startDiscordUnderTest({
      CHAT_MODEL: 'tools-model',
      SUMMARY_MODEL: 'cheap-model',
      MEMORY: 'user',
    });
    under = tools;
    tools.gateway.enqueue({ text: 'Hello.' });
    await askAndWait(tools, 'I like sailing', 'Hello.');
    tools.gateway.enqueue({ text: 'Again.' });
    await askAndWait(tools, 'still here', 'Again.');
    expect(chatRequests(tools).filter(isExtraction)).toHaveLength(0);
  });
});

describe('held memory extraction where the tools are off', () => {
  it('keeps memory for a model with tools when the place offers it none (TOOLS=none)', async () => {
    under = await startDiscordUnderTest({
      CHAT_MODEL: 'tools-model',
      SUMMARY_MODEL: 'cheap-model',
      MEMORY: 'user',
      TOOLS: 'none',
    });
    const subject = under;
    subject.gateway.enqueue({ text: 'Hello, keeper.' });
    subject.gateway.enqueue({ text: JSON.stringify({ notes: [{ text: 'Keeps bees.' }] }) });
    await askAndWait(subject, 'I keep bees', 'Hello, keeper.');
    await subject.discord.waitFor(() =>
      subject.logOutput().includes('memory notes extracted from a message') ? true : undefined,
    );
    const [reply] = chatRequests(subject);
    expect((reply?.body as { tools?: unknown } | undefined)?.tools).toBeUndefined();
    // The prompt does not name tools the model was not given.
    expect(String(bodyOf(reply)?.messages[0]?.content)).not.toContain('remember tool');
    expect((await memoryListing(subject)).content).toContain('Keeps bees.');
  });
});

describe('held memory extraction at the terminal', () => {
  it('keeps what the owner said about themself, and /memory lists it', async () => {
    const terminal = await startConsoleUnderTest({
      CHAT_MODEL: 'chat-model',
      SUMMARY_MODEL: 'cheap-model',
      MEMORY: 'user',
    });
    try {
      terminal.fake.enqueue({ text: 'Good luck with the boat.' });
      terminal.fake.enqueue({
        text: JSON.stringify({ notes: [{ text: 'Is restoring a wooden sailing boat.' }] }),
      });
      await terminal.type('I am restoring a wooden sailing boat this winter');
      const extractions = terminal.fake.requests.filter(
        (request) => request.path.endsWith('/chat/completions') && isExtraction(request),
      );
      expect(extractions).toHaveLength(1);
      expect(await terminal.type('/memory')).toContain('Is restoring a wooden sailing boat.');
    } finally {
      await terminal.close();
    }
  });
});

describe('held memory extraction reads only the person’s own words and follows the tool rules', () => {
  it('reads the question, never the message someone else wrote that it is about', async () => {
    const subject = await startWithMemory();
    const messageId = subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'I am Bob, I live in Lyon and work at Acme.',
    });
    const commandId = subject.discord.sendMessageCommand({ name: 'Ask parley about this', messageId });
    await subject.discord.waitFor(() =>
      subject.discord.interactionResponses(commandId).find((response) => response.type === 9),
    );
    subject.gateway.enqueue({ text: 'Bob introduces himself.' });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'Bob' }) });
    subject.gateway.enqueue({ text: JSON.stringify({ notes: [] }) });
    subject.discord.submitModal({
      interactionId: commandId,
      values: { question: 'I run the support desk: who is this?' },
    });
    const extraction = await subject.discord.waitFor(() => chatRequests(subject).find(isExtraction));
    const prompt = JSON.stringify(bodyOf(extraction)?.messages);
    expect(prompt).toContain('I run the support desk: who is this?');
    expect(prompt).not.toContain('Lyon');
  });

  it('keeps no notes for a person TOOL_ROLE_IDS keeps `remember` from', async () => {
    under = await startDiscordUnderTest({
      CHAT_MODEL: 'chat-model',
      SUMMARY_MODEL: 'cheap-model',
      MEMORY: 'user',
      TOOL_ROLE_IDS: 'remember=123456789012345678',
    });
    const subject = under;
    // A member without that role (the fake's default person owns the server, and admins may always).
    const ada = subject.discord.createUser({ username: 'ada' });
    subject.gateway.enqueue({ text: 'Hello.' });
    await askAndWait(subject, 'I like sailing', 'Hello.', ada.id);
    subject.gateway.enqueue({ text: 'Again.' });
    await askAndWait(subject, 'still here', 'Again.', ada.id);
    expect(chatRequests(subject).filter(isExtraction)).toHaveLength(0);
  });
});
