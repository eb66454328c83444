import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { filesystemServer, nodeServer, waitUntil, writeToolsFile } from '../support/mcp-test-servers.ts';
import { buttonOf, chatBodies, toolMessages } from '../support/test-tools.ts';

/**
 * The tool rows of the access matrix (issue 25): what the owner has not allowed a tool to do is
 * refused with a reason and does nothing, on the real server-filesystem from the tools file, on
 * Discord through the fakes. Each row's subject is `files_write_file` writing a file in a temporary
 * folder: the file must not appear.
 */
let subject: DiscordUnderTest | undefined;
afterEach(async () => {
  await subject?.close();
  subject = undefined;
});

async function startWithFiles({
  files = {},
  environment = {},
}: {
  files?: Record<string, unknown>;
  environment?: Record<string, string>;
}) {
  const folder = mkdtempSync(join(tmpdir(), 'parley-tool-access-'));
  subject = await startDiscordUnderTest({
    CHAT_MODEL: 'tools-model',
    TOOLS_FILE: writeToolsFile({ files: { ...nodeServer(filesystemServer, folder), ...files } }),
    ...environment,
  });
  const under = subject;
  await waitUntil(() => under.app.toolbox.all().some((tool) => tool.name === 'files_write_file'));
  return { under, target: join(folder, 'note.txt') };
}

function ask(under: DiscordUnderTest, content: string, author?: string) {
  under.discord.sendUserMessage({
    channelId: under.generalChannelId,
    content,
    mentionsBot: true,
    ...(author ? { author } : {}),
  });
}

const answer = (under: DiscordUnderTest, pattern: RegExp) =>
  under.discord.waitFor(
    () => under.botMessages(under.generalChannelId).find((message) => pattern.test(message.content)),
    { timeoutMs: 12_000 },
  );

describe('tool rows of the access matrix', () => {
  it('a tool off in the channel is not offered there', async () => {
    const { under } = await startWithFiles({});
    const admin = makeDiscordAdmin(under);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await runDiscordConfig(under, {
      admin,
      options: { setting: 'TOOLS', value: 'files_read_text_file', scope: 'channel' },
    });
    under.gateway.enqueue({ text: 'Only reading here.' });
    ask(under, 'what can you do here?');
    await answer(under, /^Only reading here\./);
    expect(chatBodies(under.gateway)[0]?.tools?.map((tool) => tool.function.name)).toEqual([
      'files_read_text_file',
    ]);
  });

  it('a person without the tool’s role is not offered it', async () => {
    const { under } = await startWithFiles({
      environment: { TOOL_ROLE_IDS: 'files_write_file=424242424242424242' },
    });
    const mallory = under.discord.createUser({ username: 'mallory' });
    under.gateway.enqueue({ text: 'No writing for you.' });
    ask(under, 'write a note', mallory.id);
    await answer(under, /^No writing for you\./);
    const offered = chatBodies(under.gateway)[0]?.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('files_read_text_file');
    expect(offered).not.toContain('files_write_file');
  });

  it('a budget that cannot pay for the call refuses it before it runs', async () => {
    // 0.02 a call against a 0.01 budget; the owner made write_file not ask, so only the price stops it.
    const { under, target } = await startWithFiles({
      files: { pricePerCall: 0.02, annotations: { write_file: { readOnlyHint: true } } },
      environment: { BUDGET_USER_DAILY: '0.01' },
    });
    under.gateway.enqueue({
      toolCalls: [{ name: 'files_write_file', arguments: { path: target, content: 'x' } }],
    });
    ask(under, 'write a note');
    const refusal = await answer(under, /Not sent/);
    expect(refusal.content).toMatch(/your daily budget has 0\.0\d+ of 0\.01 left/);
    expect(existsSync(target)).toBe(false);
    expect(chatBodies(under.gateway)).toHaveLength(1);
  });

  it('an acting tool the asker denies is not run, and nothing more is asked of the model', async () => {
    const { under, target } = await startWithFiles({});
    under.gateway.enqueue({
      toolCalls: [{ name: 'files_write_file', arguments: { path: target, content: 'x' } }],
    });
    under.gateway.enqueue({ text: 'I asked you first.' });
    ask(under, 'write a note');
    const question = await answer(under, /wants to/);
    await answer(under, /^I asked you first\./);
    expect(toolMessages(chatBodies(under.gateway)[1])[0]).toMatch(/^Not run yet: the person has been asked/);
    under.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Deny') });
    await under.discord.waitFor(() =>
      under.discord.message(question.id)?.content.match(/🚫 not run: .* denied it/),
    );
    expect(existsSync(target)).toBe(false);
    expect(chatBodies(under.gateway)).toHaveLength(2);
  });

  it('an acting tool nobody answers is not run once its time is up, and its question says so', async () => {
    const { under, target } = await startWithFiles({ environment: { TOOL_APPROVAL_TIMEOUT_S: '5' } });
    under.gateway.enqueue({
      toolCalls: [{ name: 'files_write_file', arguments: { path: target, content: 'x' } }],
    });
    under.gateway.enqueue({ text: 'Nobody said yes yet.' });
    ask(under, 'write a note');
    const question = await answer(under, /wants to/);
    await answer(under, /^Nobody said yes yet\./);
    await under.discord.waitFor(
      () => under.discord.message(question.id)?.content.includes('🚫 not run: nobody approved it within 5 s'),
      { timeoutMs: 15_000 },
    );
    expect(existsSync(target)).toBe(false);
    expect(chatBodies(under.gateway)).toHaveLength(2);
  }, 25_000);
});
