import { afterEach, describe, expect, it } from 'vitest';
import { askDiscordBot, makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Budgets and access on Discord, end to end: the real discord.js client and gateway client against
 * the fakes. Prices are the test catalog's (test/support/test-bot.ts): chat-model 1 a million tokens
 * in and 2 out, cheap-model a tenth of that, image-model 0.04 an image.
 */
let under: DiscordUnderTest;
afterEach(() => under.close());

type ChatBody = { model: string };
const chatBodies = () =>
  under.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const imageRequests = () =>
  under.gateway.requests.filter((request) => request.path.endsWith('/images/generations'));
const general = () => under.generalChannelId;
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const ask = (content: string, ending: RegExp, channelId = general()) =>
  askDiscordBot(under, { content, ending, channelId });

describe('budgets on Discord', () => {
  it('refuses a person at their daily budget before calling the gateway, saying what is left and when it resets', async () => {
    under = await startDiscordUnderTest({ BUDGET_USER_DAILY: '0.05' });
    // 40,000 tokens in and 10,000 out: 0.04 + 0.02, past the budget of 0.05.
    under.gateway.enqueue({
      text: 'A long answer.',
      usage: { prompt_tokens: 40_000, completion_tokens: 10_000 },
    });
    await ask('first question', /A long answer\./);
    expect(chatBodies()).toHaveLength(1);
    const refusal = await ask('second question', /Not sent/);
    expect(refusal.content).toMatch(
      /⚠ Not sent: your daily budget has 0 of 0\.05 left; this needs up to 0\.00\d+\. It resets at midnight UTC, in \d+ (h|min)/,
    );
    expect(chatBodies()).toHaveLength(1);
  });

  it('answers with the fallback model when the budget cannot pay for the configured one, and says so', async () => {
    under = await startDiscordUnderTest({ BUDGET_USER_DAILY: '0.01', BUDGET_FALLBACK_MODEL: 'cheap-model' });
    // 0.0095 spent: what is left pays for cheap-model's worst case (about 0.0002), not chat-model's (0.002).
    under.gateway.enqueue({ text: 'First.', usage: { prompt_tokens: 7_500, completion_tokens: 1_000 } });
    await ask('one', /First\./);
    under.gateway.enqueue({ text: 'Second, more cheaply.' });
    const reply = await ask('two', /Answered by cheap-model/);
    expect(reply.content).toContain('Second, more cheaply.');
    expect(reply.content).toContain(
      'Answered by cheap-model: your daily budget cannot pay for chat-model right now.',
    );
    expect(chatBodies().map((body) => body.model)).toEqual(['chat-model', 'cheap-model']);
  });

  it('warns once when a budget is 80% used', async () => {
    under = await startDiscordUnderTest({ BUDGET_USER_DAILY: '0.1' });
    under.gateway.setDefault({ endpoint: 'chat', usage: { prompt_tokens: 40_000, completion_tokens: 0 } });
    await ask('one', /one/);
    const second = await ask('two', /two/);
    expect(second.content).not.toContain('% of your daily budget');
    const third = await ask('three', /% of your daily budget/);
    expect(third.content).toMatch(/⚠ 8\d% of your daily budget is used; it resets at midnight UTC/);
    const fourth = await ask('four', /four|Not sent/);
    expect(fourth.content).not.toContain('% of your daily budget is used');
  });

  it('lets only one of two concurrent /imagine --count 4 through when the budget holds one', async () => {
    under = await startDiscordUnderTest({ BUDGET_USER_DAILY: '0.25' });
    const second = under.discord.createTextChannel({ name: 'second' });
    await pause(100);
    // Slow enough that both are in flight together: 4 images cost 0.16, two 0.32.
    under.gateway.setDefault({ endpoint: 'images', latencyMs: 800 });
    for (const channelId of [general(), second]) {
      under.discord.sendSlashCommand({ name: 'imagine', channelId, options: { prompt: 'a fox', count: 4 } });
    }
    const everything = () => [general(), second].flatMap((channelId) => under.botMessages(channelId));
    const withImages = await under.discord.waitFor(() =>
      everything().find((message) => message.attachments.length === 4),
    );
    expect(withImages.attachments).toHaveLength(4);
    const refusal = await under.discord.waitFor(() =>
      everything().find((message) => message.content.includes('Not sent')),
    );
    // Private: only the person who ran it sees the refusal (flag 64, ephemeral).
    expect(refusal.flags & 64).toBe(64);
    expect(refusal.content).toMatch(/your daily budget has 0\.09 of 0\.25 left; this needs up to 0\.16/);
    expect(imageRequests()).toHaveLength(1);
  });
});

describe('/config and access on Discord', () => {
  const makeAdmin = () => makeDiscordAdmin(under);
  const runConfig = (admin: { id: string }, options: Record<string, string>) =>
    runDiscordConfig(under, { admin, options });

  it('registers /config with subcommands for managers only, and hides it from everyone else', async () => {
    under = await startDiscordUnderTest();
    const config = under.discord
      .registeredCommands(under.discord.guildId)
      .find((command) => command.name === 'config');
    // Manage Server is 1 << 5 (topics/permissions.mdx).
    expect(config?.default_member_permissions).toBe('32');
    expect(config?.options?.map((option) => [option.name, option.type])).toEqual([
      ['show', 1],
      ['set', 1],
      ['reset', 1],
    ]);
    expect(() =>
      under.discord.sendSlashCommand({ name: 'config', subcommand: 'show', channelId: general() }),
    ).toThrow(/lacks the permissions/);
  });

  it('suggests settings and their values as a manager types', async () => {
    under = await startDiscordUnderTest();
    const admin = makeAdmin();
    await pause(100);
    const interactionId = under.discord.sendAutocomplete({
      name: 'config',
      subcommand: 'set',
      channelId: general(),
      user: admin.id,
      focused: { name: 'setting', value: 'user_d' },
    });
    const response = await under.discord.waitFor(() => under.discord.interactionResponses(interactionId)[0]);
    expect(JSON.stringify(response)).toContain('BUDGET_USER_DAILY');
  });

  it('changes a budget, logs who did, and the next request obeys it', async () => {
    under = await startDiscordUnderTest();
    const admin = makeAdmin();
    await pause(100);
    under.gateway.enqueue({ text: 'Before the change.' });
    await ask('before', /Before the change\./);
    const confirmation = await runConfig(admin, { setting: 'BUDGET_USER_DAILY', value: '0.0001' });
    expect(confirmation.content).toBe('✅ BUDGET_USER_DAILY for this server is now 0.0001.');
    expect(confirmation.flags & 64).toBe(64);
    const refusal = await ask('after', /Not sent/);
    expect(refusal.content).toMatch(/your daily budget has 0\.0000\d+ of 0\.0001 left/);
    expect(chatBodies()).toHaveLength(1);
    expect(under.logOutput()).toMatch(
      /"setting":"BUDGET_USER_DAILY".*"changedById":"\d+".*setting changed with \/config/,
    );
  });

  it('gives a blocked person no reply and one private notice, and never calls the gateway', async () => {
    under = await startDiscordUnderTest();
    const admin = makeAdmin();
    const mallory = under.discord.createUser({ username: 'mallory' });
    await pause(100);
    await runConfig(admin, { setting: 'ACCESS_BLOCK_USER_IDS', value: `<@${mallory.id}>` });
    under.discord.sendUserMessage({
      channelId: general(),
      author: mallory.id,
      content: 'hello?',
      mentionsBot: true,
    });
    under.discord.sendUserMessage({
      channelId: general(),
      author: mallory.id,
      content: 'anyone?',
      mentionsBot: true,
    });
    const dmChannel = under.discord.directMessageChannel(mallory.id);
    const notice = await under.discord.waitFor(() => under.botMessages(dmChannel)[0]);
    expect(notice.content).toBe('Sorry, you cannot use parley here. A server admin decides who can.');
    await pause(400);
    expect(under.botMessages(dmChannel)).toHaveLength(1);
    expect(under.botMessages(general()).filter((message) => !/✅/.test(message.content))).toEqual([]);
    expect(chatBodies()).toEqual([]);
  });
});
