import { afterEach, describe, expect, it } from 'vitest';
import { askDiscordBot, makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * The per-channel settings of /config (the default model and system prompt), end to end on Discord:
 * a manager sets them in one channel, the next request there uses them, the other channel keeps the
 * defaults, and a reset puts them back.
 */
let under: DiscordUnderTest;
afterEach(() => under.close());

type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };
const chatBodies = () =>
  under.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const lastChatBody = () => chatBodies().at(-1);
const systemText = (body: ChatBody | undefined) =>
  body?.messages.find((message) => message.role === 'system')?.content;
const general = () => under.generalChannelId;
const random = () => under.discord.textChannelIds[1] ?? '';
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const ask = (content: string, ending: RegExp, channelId = general()) =>
  askDiscordBot(under, { content, ending, channelId });
const makeAdmin = () => makeDiscordAdmin(under);
const runConfig = (admin: { id: string }, subcommand: 'set' | 'reset', options: Record<string, string>) =>
  runDiscordConfig(under, { admin, subcommand, options });

describe('/config settings for one channel', () => {
  it('sets the default model of one channel; the other channel keeps the configured one; reset undoes it', async () => {
    under = await startDiscordUnderTest();
    const admin = makeAdmin();
    await pause(100);
    const set = await runConfig(admin, 'set', {
      setting: 'CHAT_MODEL',
      value: 'cheap-model',
      scope: 'channel',
    });
    expect(set.content).toBe('✅ CHAT_MODEL for this channel is now cheap-model.');

    under.gateway.enqueue({ text: 'From the cheap one.' });
    await ask('hello', /From the cheap one\./);
    expect(lastChatBody()?.model).toBe('cheap-model');

    under.gateway.enqueue({ text: 'From the usual one.' });
    await ask('hello there', /From the usual one\./, random());
    expect(lastChatBody()?.model).toBe('chat-model');

    const reset = await runConfig(admin, 'reset', { setting: 'CHAT_MODEL', scope: 'channel' });
    expect(reset.content).toBe('✅ CHAT_MODEL for this channel is back to the default.');
    under.gateway.enqueue({ text: 'Back to usual.' });
    await ask('and now?', /Back to usual\./);
    expect(lastChatBody()?.model).toBe('chat-model');
  });

  it('refuses a model that /model does not offer, and changes nothing', async () => {
    under = await startDiscordUnderTest();
    const admin = makeAdmin();
    await pause(100);
    const refused = await runConfig(admin, 'set', {
      setting: 'CHAT_MODEL',
      value: 'no-such-model',
      scope: 'channel',
    });
    expect(refused.content).toMatch(/^⚠ CHAT_MODEL must be one of \/model's list: chat-model, /);
    under.gateway.enqueue({ text: 'Unchanged.' });
    await ask('hello', /Unchanged\./);
    expect(lastChatBody()?.model).toBe('chat-model');
  });

  it('gives one channel its own system prompt, sent before the conversation, and not to the other channel', async () => {
    under = await startDiscordUnderTest();
    const admin = makeAdmin();
    await pause(100);
    const set = await runConfig(admin, 'set', {
      setting: 'SYSTEM_PROMPT',
      value: 'Answer like a pirate.',
      scope: 'channel',
    });
    expect(set.content).toMatch(/^✅ SYSTEM_PROMPT for this channel is now/);

    under.gateway.enqueue({ text: 'Arr.' });
    await ask('hello', /Arr\./);
    expect(String(systemText(lastChatBody()))).toContain('Answer like a pirate.');

    under.gateway.enqueue({ text: 'Hello.' });
    await ask('hello', /Hello\./, random());
    expect(String(systemText(lastChatBody()) ?? '')).not.toContain('Answer like a pirate.');
  });
});
