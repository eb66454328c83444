import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import {
  type HttpEverything,
  startHttpEverything,
  waitUntil,
  writeToolsFile,
} from '../support/mcp-test-servers.ts';
import { chatBodies, offeredNames, testTool, toolMessages } from '../support/test-tools.ts';

/**
 * Tools that are missing in a reply, said as such, end to end on Discord (the real discord.js
 * client and gateway client against the fakes): an MCP server that is down is told in the reply's
 * notes where its tools would have been this person's, and a call to a tool that is off here is
 * answered with why, not "Unknown tool".
 */
let under: DiscordUnderTest | undefined;
let everything: HttpEverything | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
  await everything?.close();
  everything = undefined;
});

async function ask(subject: DiscordUnderTest, content: string, answerStart: string, author?: string) {
  subject.discord.sendUserMessage({
    channelId: subject.generalChannelId,
    content,
    mentionsBot: true,
    ...(author ? { author } : {}),
  });
  // The final write carries the notes and the Regenerate button.
  return subject.discord.waitFor(
    () =>
      subject
        .botMessages(subject.generalChannelId)
        .find(
          (message) =>
            message.content.startsWith(answerStart) &&
            JSON.stringify(message.components).includes('Regenerate'),
        ),
    { timeoutMs: 15_000 },
  );
}

/** An address where nothing listens: a server that is down from the start. */
async function closedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/mcp`;
}

const notice = (server: string) =>
  `The ${server} tools are unavailable right now (their server is down), so I answered without them.`;

describe('an MCP server that is down', () => {
  it('is told in the reply where its tools would have been offered, and not where they are off', async () => {
    everything = await startHttpEverything();
    under = await startDiscordUnderTest({
      CHAT_MODEL: 'tools-model',
      TOOLS_FILE: writeToolsFile({ remote: { url: everything.url }, ghost: { url: await closedUrl() } }),
    });
    const subject = under;
    const states = () => subject.app.mcpServers.states();
    await waitUntil(() => subject.app.toolbox.all().some((tool) => tool.name === 'remote_echo'));
    await waitUntil(() => states().find((state) => state.name === 'ghost')?.status === 'down');

    // Both up and answering: no note about remote, one about ghost, which never came up.
    subject.gateway.enqueue({ text: 'First answer.' });
    const first = await ask(subject, 'hello', 'First answer.');
    expect(first.content).not.toContain(notice('remote'));
    expect(first.content).toContain(notice('ghost'));

    // remote stops: its tools leave the toolbox, and the next reply says so.
    await everything.close();
    await waitUntil(() => states().find((state) => state.name === 'remote')?.status === 'down', 15_000);
    expect(subject.app.toolbox.all().some((tool) => tool.source === 'remote')).toBe(false);
    subject.gateway.enqueue({ text: 'Second answer.' });
    const second = await ask(subject, 'echo this please', 'Second answer.');
    expect(second.content).toContain(notice('remote'));
    expect(second.content).toContain(notice('ghost'));
    // The model was told too, so it does not pretend to have them.
    expect(JSON.stringify(chatBodies(subject.gateway)[1]?.messages[0]?.content)).toContain(
      'The tools of remote are unavailable right now (its server is down)',
    );

    // Where the place turns ghost's tools off, ghost's outage is nobody's business here.
    const admin = makeDiscordAdmin(subject);
    await runDiscordConfig(subject, { admin, options: { setting: 'TOOLS', value: 'remote_*' } });
    subject.gateway.enqueue({ text: 'Third answer.' });
    const third = await ask(subject, 'and now?', 'Third answer.');
    expect(third.content).toContain(notice('remote'));
    expect(third.content).not.toContain('ghost');
  }, 40_000);

  it('answers a call to one of its tools with "unavailable right now", not "Unknown tool"', async () => {
    everything = await startHttpEverything();
    under = await startDiscordUnderTest({
      CHAT_MODEL: 'tools-model',
      TOOLS_FILE: writeToolsFile({ remote: { url: everything.url } }),
    });
    const subject = under;
    await waitUntil(() => subject.app.toolbox.all().some((tool) => tool.name === 'remote_echo'));
    await everything.close();
    await waitUntil(() => subject.app.mcpServers.states()[0]?.status === 'down', 15_000);
    subject.app.toolbox.replace('test', [testTool({ name: 'test_read' })]);
    // The model remembers remote_echo from earlier in the conversation.
    subject.gateway.enqueue({
      toolCalls: [{ name: 'remote_echo', arguments: { message: 'hi' } }],
      callsToolsNotOffered: true,
    });
    subject.gateway.enqueue({ text: 'It is down.' });
    const reply = await ask(subject, 'echo hi', 'It is down.');
    expect(offeredNames(chatBodies(subject.gateway)[0])).toEqual(['test_read']);
    expect(toolMessages(chatBodies(subject.gateway)[1])).toEqual([
      'Not run: remote_echo is unavailable right now: its server is down. Do not call it again in this reply; tell the person if it matters.',
    ]);
    expect(reply.content).toContain(notice('remote'));
  }, 40_000);
});

describe('a call to a tool that is off here', () => {
  it('says it is switched off here, or not this person’s, and an unknown one is still unknown', async () => {
    under = await startDiscordUnderTest({
      CHAT_MODEL: 'tools-model',
      TOOLS: 'test_*',
      TOOL_ROLE_IDS: 'test_secret=424242424242424242',
    });
    const subject = under;
    const calls: unknown[] = [];
    subject.app.toolbox.replace('test', [
      testTool({ name: 'test_read' }, calls),
      testTool({ name: 'test_secret' }, calls),
    ]);
    subject.app.toolbox.replace('other', [testTool({ name: 'other_read', source: 'other' }, calls)]);
    const mallory = subject.discord.createUser({ username: 'mallory' });
    subject.gateway.enqueue({
      toolCalls: [
        { name: 'other_read', arguments: {} },
        { name: 'test_secret', arguments: {} },
        { name: 'no_such_tool', arguments: {} },
      ],
      callsToolsNotOffered: true,
    });
    subject.gateway.enqueue({ text: 'Done trying.' });
    await ask(subject, 'use every tool', 'Done trying.', mallory.id);

    // Neither is offered; each call is answered with why, and none ran.
    expect(offeredNames(chatBodies(subject.gateway)[0])).toEqual(['test_read']);
    expect(toolMessages(chatBodies(subject.gateway)[1])).toEqual([
      'Not run: other_read is switched off in this channel. Do not call it again in this reply; tell the person if it matters.',
      'Not run: test_secret is not available to this person here. Do not call it again in this reply; tell the person if it matters.',
      'Unknown tool no_such_tool. The tools you may call are: test_read.',
    ]);
    expect(calls).toEqual([]);
  });
});
