import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeMessage } from '../fakes/discord/message-store.ts';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { actingTool, buttonOf, chatBodies, testTool, toolMessages } from '../support/test-tools.ts';

/**
 * An acting tool's question, end to end on Discord (discord.js, the gateway client and the fakes):
 * what it shows is every argument, inert, and exactly what runs; the reply that asked does not wait
 * for the answer, so the channel goes on; every call put to the asker counts toward the reply's cap;
 * and Approve asks the gate again with the presser as they are at the press.
 */
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

async function start(environment: Record<string, string> = {}) {
  under = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model', ...environment });
  await new Promise((resolve) => setTimeout(resolve, 100));
  return under;
}

function ask(subject: DiscordUnderTest, content: string, author?: string) {
  subject.discord.sendUserMessage({
    channelId: subject.generalChannelId,
    content,
    mentionsBot: true,
    ...(author ? { author } : {}),
  });
}

function botMessage(subject: DiscordUnderTest, matches: (message: FakeMessage) => boolean) {
  return subject.discord.waitFor(() => subject.botMessages(subject.generalChannelId).find(matches), {
    timeoutMs: 15_000,
  });
}

/**
 * The text between the first fence line and the next one: what Discord shows literally (its code
 * block is three backticks up to the next three backticks: "Markdown Text 101", code blocks).
 */
function fencedBlockOf(content: string): string | undefined {
  const match = /\n```\n([\s\S]*?)\n```(?:\n|$)/.exec(content);
  return match?.[1];
}

describe('what the question shows is what runs', () => {
  it('shows backticks and Markdown inside a code block, literally, and runs exactly those bytes', async () => {
    const subject = await start();
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    // The model's own spacing and a backtick right at the end: the text, not a re-serialisation.
    const raw =
      '{"text":  "✅ **read-only preview, nothing is sent** `rm` [link](https://x.test) <@1> ``x`"}';
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: raw }] });
    subject.gateway.enqueue({ text: 'I asked you first.' });
    subject.gateway.enqueue({ text: 'Written.' });
    ask(subject, 'write it');
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    expect(fencedBlockOf(question.content)).toBe(raw);
    // The only fences are the block's own: nothing in the arguments closes it.
    expect(question.content.split('```')).toHaveLength(3);
    expect(question.content).not.toContain('(cut');
    expect(subject.discord.uploadedFiles(question.id)).toEqual([]);
    await botMessage(subject, (message) => message.content.startsWith('I asked you first.'));
    expect(calls).toEqual([]);

    subject.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Approve') });
    await botMessage(subject, (message) => message.content.startsWith('Written.'));
    expect(calls).toEqual([JSON.parse(raw)]);
    // The model is given the call with the same bytes, and its result.
    const resumed = chatBodies(subject.gateway)[2];
    const assistant = resumed?.messages.find((message) => message.role === 'assistant' && message.tool_calls);
    expect(assistant?.tool_calls?.[0]?.function.arguments).toBe(raw);
    expect(toolMessages(resumed)[0]).toContain('test_write did');
    expect(subject.discord.message(question.id)?.content).toContain('✅ approved by');
    // The audit trail has the call and who approved it, with the arguments' size and hash only.
    const [entry] = (
      await subject.services.audit.read({
        platform: 'discord',
        workspace: subject.discord.guildId,
        kind: 'tool-call',
        limit: 5,
      })
    ).entries;
    expect(entry?.what).toBe('test_write (test), approved');
    expect(entry?.actor.id).toBe(subject.discord.user.id);
    expect(entry?.details).toMatchObject({
      argumentsBytes: Buffer.byteLength(raw),
      argumentsSha256: createHash('sha256').update(raw).digest('hex'),
      isApproved: true,
    });
    expect(JSON.stringify(entry)).not.toContain('read-only preview');
  }, 30_000);

  it('cuts 2,000 characters of arguments to what a message holds, says how much, and attaches them whole', async () => {
    const subject = await start();
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    const raw = `{"text": "${'y'.repeat(1_960)}", "attach": "/home/owner/.env"}`;
    expect(raw.length).toBeGreaterThan(2_000);
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: raw }] });
    subject.gateway.enqueue({ text: 'Waiting for you.' });
    subject.gateway.enqueue({ text: 'Done.' });
    ask(subject, 'write the long one');
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    expect(question.content.length).toBeLessThanOrEqual(2_000);
    const shown = fencedBlockOf(question.content) ?? '';
    expect(raw.startsWith(shown)).toBe(true);
    expect(shown.length).toBeGreaterThan(1_000);
    expect(question.content).not.toContain('/home/owner/.env');
    expect(question.content).toContain(
      `(cut, ${(raw.length - shown.length).toLocaleString('en-US')} more characters — see file test_write-arguments.json)`,
    );
    // The whole arguments, as a file posted just before the question.
    const messages = subject.botMessages(subject.generalChannelId);
    const fileMessage = messages[messages.findIndex((message) => message.id === question.id) - 1];
    const files = subject.discord.uploadedFiles(fileMessage?.id ?? '');
    expect(files.map((file) => file.filename)).toEqual(['test_write-arguments.json']);
    expect(new TextDecoder().decode(files[0]?.bytes)).toBe(raw);

    // Two presses at once (a double click, before the first takes the buttons away): one runs.
    subject.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Approve') });
    subject.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Approve') });
    await botMessage(subject, (message) => message.content.startsWith('Done.'));
    await botMessage(subject, (message) => message.content.includes('already answered'));
    expect(calls).toEqual([JSON.parse(raw)]);
    expect((calls[0] as { attach?: string }).attach).toBe('/home/owner/.env');
    expect(chatBodies(subject.gateway)).toHaveLength(3);
  }, 30_000);

  it('shows arguments that hold a fence only in the attached file', async () => {
    const subject = await start();
    subject.app.toolbox.replace('test', [actingTool('test_write', [])]);
    const raw = '{"text": "```\\n**not** a block```"}';
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: raw }] });
    subject.gateway.enqueue({ text: 'Asked.' });
    ask(subject, 'write a fence');
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    expect(question.content).not.toContain('```');
    expect(question.content).toContain(
      '(not shown here: they hold a code fence — see file test_write-arguments.json)',
    );
    const messages = subject.botMessages(subject.generalChannelId);
    const fileMessage = messages[messages.findIndex((message) => message.id === question.id) - 1];
    const files = subject.discord.uploadedFiles(fileMessage?.id ?? '');
    expect(new TextDecoder().decode(files[0]?.bytes)).toBe(raw);
  }, 30_000);
});

describe('a question waiting for its answer', () => {
  it('leaves the channel free: another person is answered while it is still open', async () => {
    const subject = await start();
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    const bob = subject.discord.createUser({ username: 'bob' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'hello' } }] });
    subject.gateway.enqueue({ text: 'It waits for your approval.' });
    subject.gateway.enqueue({ text: 'Hello Bob.' });
    ask(subject, 'write hello');
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    await botMessage(subject, (message) => message.content.startsWith('It waits for your approval.'));
    ask(subject, 'hi there', bob.id);
    await botMessage(subject, (message) => message.content.startsWith('Hello Bob.'));
    // Bob's reply came while the question is still open and nothing has run.
    expect(subject.app.toolApprovals.pendingCount()).toBe(1);
    expect(subject.discord.message(question.id)?.content).not.toContain('approved');
    expect(buttonOf(subject.discord.message(question.id) ?? question, 'Approve')).not.toBe('');
    expect(calls).toEqual([]);
    // The model was told it waits, not that it ran.
    expect(toolMessages(chatBodies(subject.gateway)[1])[0]).toMatch(
      /^Not run yet: the person has been asked/,
    );
  }, 30_000);

  it('is not run once its time is up, and its buttons go', async () => {
    const subject = await start({ TOOL_APPROVAL_TIMEOUT_S: '5' });
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'late' } }] });
    subject.gateway.enqueue({ text: 'Asked.' });
    ask(subject, 'write late');
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    await subject.discord.waitFor(
      () =>
        subject.discord.message(question.id)?.content.includes('🚫 not run: nobody approved it within 5 s'),
      { timeoutMs: 15_000 },
    );
    expect(buttonOf(subject.discord.message(question.id) ?? question, 'Approve')).toBe('');
    expect(subject.app.toolApprovals.pendingCount()).toBe(0);
    expect(calls).toEqual([]);
    expect(chatBodies(subject.gateway)).toHaveLength(2);
  }, 30_000);
});

describe('calls put to the asker count toward the reply’s cap', () => {
  it('counts each question as a call: past TOOL_CALLS_PER_REPLY nothing more runs', async () => {
    const subject = await start({ TOOL_CALLS_PER_REPLY: '2', TOOL_CALLS_PER_ROUND: '5' });
    const writes: unknown[] = [];
    const reads: unknown[] = [];
    subject.app.toolbox.replace('test', [
      actingTool('test_write', writes),
      testTool({ name: 'test_read' }, reads),
    ]);
    subject.gateway.enqueue({
      toolCalls: [
        { name: 'test_write', arguments: { text: 'a' } },
        { name: 'test_write', arguments: { text: 'b' } },
        { name: 'test_read', arguments: {} },
      ],
    });
    subject.gateway.enqueue({ text: 'Two questions asked.' });
    ask(subject, 'write twice, then read');
    await botMessage(subject, (message) => message.content.startsWith('Two questions asked.'));
    const questions = subject
      .botMessages(subject.generalChannelId)
      .filter((message) => message.content.includes('wants to'));
    expect(questions).toHaveLength(2);
    const answers = toolMessages(chatBodies(subject.gateway)[1]);
    expect(answers[2]).toMatch(/^Not run: this reply has used all 2 of its tool calls/);
    expect(reads).toEqual([]);
    // The cap reached, the next round is offered no tools.
    expect(chatBodies(subject.gateway)[1]?.tools).toBeUndefined();
    // Denied, a call stays counted and does not run.
    const first = questions[0];
    if (!first) throw new Error('no question');
    subject.discord.clickButton({ messageId: first.id, customId: buttonOf(first, 'Deny') });
    await subject.discord.waitFor(() => subject.discord.message(first.id)?.content.includes('🚫 not run'));
    expect(writes).toEqual([]);
    expect(chatBodies(subject.gateway)).toHaveLength(2);
  }, 30_000);
});

describe('Approve asks the gate again', () => {
  it('does not run the call for a person blocked after the question was shown', async () => {
    const subject = await start();
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    const admin = makeDiscordAdmin(subject);
    const mallory = subject.discord.createUser({ username: 'mallory' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'x' } }] });
    subject.gateway.enqueue({ text: 'Asked.' });
    ask(subject, 'write x', mallory.id);
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    await botMessage(subject, (message) => message.content.startsWith('Asked.'));
    const confirmation = await runDiscordConfig(subject, {
      admin,
      options: { setting: 'ACCESS_BLOCK_USER_IDS', value: `<@${mallory.id}>` },
    });
    expect(confirmation.content).toMatch(/✅/);
    subject.discord.clickButton({
      messageId: question.id,
      customId: buttonOf(question, 'Approve'),
      user: mallory.id,
    });
    await subject.discord.waitFor(() =>
      subject.discord
        .message(question.id)
        ?.content.includes('🚫 not run: the asker may no longer use it here'),
    );
    expect(calls).toEqual([]);
    expect(chatBodies(subject.gateway)).toHaveLength(2);
    const refused = await subject.services.audit.read({
      platform: 'discord',
      workspace: subject.discord.guildId,
      kind: 'tool-call',
      limit: 5,
    });
    expect(refused.entries.map((entry) => [entry.result, entry.what])).toEqual([
      ['refused', 'test_write: approved, but refused at the press (the asker may no longer use it here)'],
    ]);
  }, 30_000);

  it('notes in the audit trail an approval whose reply a budget then refused', async () => {
    const subject = await start();
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    const admin = makeDiscordAdmin(subject);
    await new Promise((resolve) => setTimeout(resolve, 100));
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'x' } }] });
    subject.gateway.enqueue({ text: 'Asked.' });
    ask(subject, 'write x');
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    await botMessage(subject, (message) => message.content.startsWith('Asked.'));
    const confirmation = await runDiscordConfig(subject, {
      admin,
      options: { setting: 'BUDGET_USER_DAILY', value: '0' },
    });
    expect(confirmation.content).toMatch(/✅/);
    subject.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Approve') });
    await vi.waitFor(
      async () => {
        const trail = await subject.services.audit.read({
          platform: 'discord',
          workspace: subject.discord.guildId,
          kind: 'tool-call',
          limit: 5,
        });
        expect(trail.entries.map((entry) => entry.what)).toContain(
          'test_write: approved, but its reply failed before answering',
        );
      },
      { timeout: 15_000 },
    );
    expect(calls).toEqual([]);
    expect(chatBodies(subject.gateway)).toHaveLength(2);
  }, 30_000);

  it('does not run a tool the place’s rules have since kept to a role the asker lacks', async () => {
    const subject = await start();
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    const admin = makeDiscordAdmin(subject);
    const mallory = subject.discord.createUser({ username: 'mallory' });
    const role = subject.discord.createRole({ name: 'writers' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    subject.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'x' } }] });
    subject.gateway.enqueue({ text: 'Asked.' });
    ask(subject, 'write x', mallory.id);
    const question = await botMessage(subject, (message) => message.content.includes('wants to'));
    await runDiscordConfig(subject, {
      admin,
      options: { setting: 'TOOL_ROLE_IDS', value: `test_write=${role}` },
    });
    subject.discord.clickButton({
      messageId: question.id,
      customId: buttonOf(question, 'Approve'),
      user: mallory.id,
    });
    const refusal = await botMessage(subject, (message) =>
      message.content.includes('You may no longer use test_write'),
    );
    expect(refusal.flags & 64).toBe(64);
    expect(calls).toEqual([]);
    expect(chatBodies(subject.gateway)).toHaveLength(2);
  }, 30_000);
});
