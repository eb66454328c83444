import { Client, Events, GatewayIntentBits, type Message } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

/** A raw gateway connection that records every payload, for checking the protocol itself. */
async function openGateway(fake: FakeDiscord) {
  const response = await fetch(`${fake.apiUrl}/v10/gateway/bot`, {
    headers: { authorization: `Bot ${fake.token}` },
  });
  const { url } = (await response.json()) as { url: string };
  const socket = new WebSocket(`${url}?v=10&encoding=json`);
  const payloads: { op: number; t?: string; s?: number; d?: Record<string, unknown> }[] = [];
  let closeCode: number | undefined;
  socket.on('message', (data) => payloads.push(JSON.parse(data.toString())));
  socket.on('close', (code) => {
    closeCode = code;
  });
  await new Promise((resolve) => socket.once('open', resolve));
  return {
    payloads,
    send: (payload: unknown) => socket.send(JSON.stringify(payload)),
    closeCode: () => closeCode,
    close: () => socket.close(),
  };
}

describe('fake discord: gateway', () => {
  let fake: FakeDiscord;

  beforeAll(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 30_000 });
  });
  afterAll(() => fake.close());

  it('says HELLO, acknowledges heartbeats, and answers IDENTIFY with READY then GUILD_CREATE', async () => {
    const gateway = await openGateway(fake);
    await fake.waitFor(() => gateway.payloads.length >= 1);
    expect(gateway.payloads[0]).toEqual({ op: 10, d: { heartbeat_interval: 30_000 } });

    gateway.send({ op: 1, d: null });
    await fake.waitFor(() => gateway.payloads.find((payload) => payload.op === 11));

    gateway.send({ op: 2, d: { token: fake.token, intents: 1, properties: {} } });
    const guildCreate = await fake.waitFor(() =>
      gateway.payloads.find((payload) => payload.t === 'GUILD_CREATE'),
    );
    const ready = gateway.payloads.find((payload) => payload.t === 'READY');
    expect(ready).toMatchObject({
      op: 0,
      s: 1,
      d: {
        user: { id: fake.bot.id, bot: true },
        guilds: [{ id: fake.guildId, unavailable: true }],
        application: { id: fake.applicationId },
      },
    });
    expect(ready?.d?.resume_gateway_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/gateway$/);
    expect(guildCreate.s).toBe(2);
    expect(guildCreate.d).toMatchObject({ id: fake.guildId, roles: [{ name: '@everyone' }] });
    gateway.close();
  });

  it('closes with 4004 when IDENTIFY carries a wrong token', async () => {
    const gateway = await openGateway(fake);
    gateway.send({ op: 2, d: { token: 'wrong', intents: 1, properties: {} } });
    await fake.waitFor(() => gateway.closeCode());
    expect(gateway.closeCode()).toBe(4004);
  });

  it('hides message content from a session without the MessageContent intent unless it mentions the bot', async () => {
    const gateway = await openGateway(fake);
    gateway.send({ op: 2, d: { token: fake.token, intents: 1 | (1 << 9), properties: {} } });
    await fake.waitFor(() => gateway.payloads.find((payload) => payload.t === 'GUILD_CREATE'));
    const channelId = fake.textChannelIds[0] ?? '';

    fake.sendUserMessage({ channelId, content: 'just chatting' });
    fake.sendUserMessage({ channelId, content: 'are you there?', mentionsBot: true });
    fake.sendUserMessage({ channelId: fake.directMessageChannel(), content: 'a DM needs DIRECT_MESSAGES' });
    const messages = await fake.waitFor(() => {
      const found = gateway.payloads.filter((payload) => payload.t === 'MESSAGE_CREATE');
      return found.length >= 2 && found;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(messages.map((payload) => payload.d?.content)).toEqual(['', `<@${fake.bot.id}> are you there?`]);
    expect(gateway.payloads.filter((payload) => payload.t === 'MESSAGE_CREATE')).toHaveLength(2);
    gateway.close();
  });

  it('closes with 4014 when IDENTIFY asks for Message Content the application has not enabled', async () => {
    fake.setMessageContentIntentEnabled(false);
    try {
      const refused = await openGateway(fake);
      refused.send({ op: 2, d: { token: fake.token, intents: 1 | (1 << 15), properties: {} } });
      await fake.waitFor(() => refused.closeCode());
      expect(refused.closeCode()).toBe(4014);
      expect(refused.payloads.some((payload) => payload.t === 'READY')).toBe(false);

      const client = new Client({
        intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
        rest: { api: fake.apiUrl },
      });
      await expect(client.login(fake.token)).rejects.toThrow(/disallowed intents/i);
      await client.destroy();

      const accepted = await openGateway(fake);
      accepted.send({ op: 2, d: { token: fake.token, intents: 1 | (1 << 9), properties: {} } });
      await fake.waitFor(() => accepted.payloads.find((payload) => payload.t === 'READY'));
      accepted.close();
    } finally {
      fake.setMessageContentIntentEnabled(true);
    }
  });

  it('shows a session without Message Content a reply that pings the bot, not one that does not', async () => {
    const gateway = await openGateway(fake);
    gateway.send({ op: 2, d: { token: fake.token, intents: 1 | (1 << 9), properties: {} } });
    await fake.waitFor(() => gateway.payloads.find((payload) => payload.t === 'GUILD_CREATE'));
    const channelId = fake.textChannelIds[0] ?? '';
    const botMessage = await fetch(`${fake.apiUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'an answer' }),
    }).then((response) => response.json() as Promise<{ id: string }>);

    fake.sendUserMessage({ channelId, content: 'pinging reply', replyToMessageId: botMessage.id });
    fake.sendUserMessage({
      channelId,
      content: 'quiet reply',
      replyToMessageId: botMessage.id,
      pingsRepliedAuthor: false,
    });
    const replies = await fake.waitFor(() => {
      const found = gateway.payloads.filter(
        (payload) => payload.t === 'MESSAGE_CREATE' && payload.d?.message_reference !== undefined,
      );
      return found.length >= 2 && found;
    });
    expect(replies.map((payload) => payload.d?.content)).toEqual(['pinging reply', '']);
    gateway.close();
  });

  it('makes the real client fail to log in with a wrong token', async () => {
    const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiUrl } });
    await expect(client.login('wrong-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
    await client.destroy();
  });

  it('lets the real client resume after the gateway drops it, replaying what it missed', async () => {
    const client = await connectClient(fake);
    try {
      const received: Message[] = [];
      client.on(Events.MessageCreate, (message) => received.push(message));
      const resumed = new Promise((resolve) => client.once(Events.ShardResume, resolve));
      fake.disconnectGateway();
      await fake.waitFor(() => fake.identifiedSessionCount === 0);
      fake.sendUserMessage({ channelId: fake.textChannelIds[0] ?? '', content: 'still there?' });
      await resumed;
      await fake.waitFor(() => received.find((message) => message.content === 'still there?'));
    } finally {
      await client.destroy();
    }
  });
});
