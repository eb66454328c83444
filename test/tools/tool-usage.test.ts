import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandServices } from '../../commands/define-command.ts';
import type { Tool } from '../../src/tools/tool.ts';
import { appMention, slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { isCard, textOfMessage } from '../support/discord-slash-command.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { testTool } from '../support/test-tools.ts';

/**
 * /usage shows the tool calls a person's replies ran (issue 25), by tool, with how many failed, on
 * every platform: a model turn on the fake gateway calls the tools, then /usage is asked for.
 */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Two tools of the test's own: one that answers, one that always fails. */
const tools: Tool[] = [
  testTool({ name: 'test_read' }),
  testTool({
    name: 'test_broken',
    run: async () => ({ text: 'the service is down', isError: true }),
  }),
];
/** A turn that calls both tools, then answers. */
function scriptToolTurn(gateway: { enqueue(behaviour: object): void }) {
  gateway.enqueue({
    toolCalls: [
      { name: 'test_read', arguments: { text: 'a' } },
      { name: 'test_broken', arguments: {} },
    ],
  });
  gateway.enqueue({ text: 'Read one, the other failed.' });
}
/** Waits until the reply's spending, tool calls included, is settled in the ledger. */
async function untilCounted(services: CommandServices, userId: string) {
  await expect
    .poll(
      async () =>
        (await services.usage.report({ userId, conversationKey: 'any::', at: services.now() })).user.today
          .toolCalls,
      { timeout: 10_000 },
    )
    .toEqual({ test_read: { calls: 1, errors: 0 }, test_broken: { calls: 1, errors: 1 } });
}
const toolCallsLine = '🔧 tool calls: `test_broken` 1 (1 failed), `test_read` 1';

describe('/usage counts tool calls', () => {
  it('on Discord, in the Components V2 card, for the person and the conversation', async () => {
    const under: DiscordUnderTest = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model' });
    close = () => under.close();
    under.app.toolbox.replace('test', tools);
    const ada = under.discord.createUser({ username: 'ada' });
    scriptToolTurn(under.gateway);
    under.discord.sendUserMessage({
      author: ada.id,
      channelId: under.generalChannelId,
      content: 'try both',
      mentionsBot: true,
    });
    await under.discord.waitFor(() =>
      under.botMessages(under.generalChannelId).find((message) => message.content.startsWith('Read one')),
    );
    await untilCounted(under.services, ada.id);
    under.discord.sendSlashCommand({
      name: 'usage',
      channelId: under.generalChannelId,
      user: ada.id,
      options: {},
    });
    const card = await under.discord.waitFor(() =>
      under.botMessages(under.generalChannelId).find((message) => isCard(message)),
    );
    const text = textOfMessage(card);
    // Today and this month, for the person and for the conversation.
    expect(text.split(toolCallsLine)).toHaveLength(5);
    expect(text).toMatch(/2 requests\n🔧 tool calls/);
  });

  it('on Slack, in the Block Kit answer', async () => {
    const bot: SlackUnderTest = await startSlackUnderTest({
      mode: 'http',
      environment: { CHAT_MODEL: 'tools-model' },
    });
    close = () => bot.close();
    bot.app.toolbox.replace('test', tools);
    scriptToolTurn(bot.gateway);
    await bot.deliverEvent(appMention({ channel: 'C0TOOLUSE1', text: 'try both' }));
    await untilCounted(bot.services, 'U0PERSON01');
    await bot.deliverCommand(slashCommand({ command: '/usage', channel: 'C0TOOLUSE1' }));
    const answer = await bot.slack.waitFor(() =>
      bot.slack.responseUrlPosts.find((post) => JSON.stringify(post).includes('Your usage')),
    );
    expect(JSON.stringify(answer)).toContain('tool calls: `test_broken` 1 (1 failed), `test_read` 1');
  });

  it('in the terminal, in /export, and off the person after /forget', async () => {
    const under: ConsoleUnderTest = await startConsoleUnderTest({ CHAT_MODEL: 'tools-model' });
    close = () => under.close();
    under.app.toolbox.replace('test', tools);
    scriptToolTurn(under.fake);
    await under.type('try both');
    const printed = await under.type('/usage');
    expect(printed.split(toolCallsLine)).toHaveLength(5);

    await under.type('/export');
    const [file] = (await readdir(under.outputDirectory)).filter((name) => name.startsWith('parley-data-'));
    const exported = JSON.parse(await readFile(join(under.outputDirectory, file ?? ''), 'utf8'));
    const counted = { test_read: { calls: 1, errors: 0 }, test_broken: { calls: 1, errors: 1 } };
    expect(exported.data.usage.today.toolCalls).toEqual(counted);

    // /forget: the person's own counts go; the conversation's stay, without a name.
    await under.type('/forget me', '/press 1');
    const report = await under.services.usage.report({
      userId: 'ada',
      conversationKey: 'console:local:ada',
      at: under.services.now(),
    });
    expect(report.user.today.toolCalls).toEqual({});
    expect(report.user.today.requests).toBe(2);
    expect(report.conversation.today.toolCalls).toEqual(counted);
  });
});
