import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Events, GatewayIntentBits, type Message, Partials, type TextChannel } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordOutbound } from '../../adapters/discord/discord-outbound.ts';
import { createMissedMessages, type MissedMessages } from '../../adapters/discord/missed-messages.ts';
import { createStoredWatermarks, shardOfGuild } from '../../adapters/discord/stored-watermarks.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

// The watermarks of the catch-up in the bot's keyv store, read by the real discord.js client from
// the fake Discord: each "process" is a MissedMessages of its own over the same store.
let fake: FakeDiscord | undefined;
let store: Store | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.destroy()));
  await store?.close();
  await fake?.close();
  store = undefined;
  fake = undefined;
});

const { logger } = createCapturedLogger();

/** A store file of its own: a memory store keeps each namespace apart, and processes share a file. */
const sqliteStoreUrl = () =>
  `sqlite://${join(mkdtempSync(join(tmpdir(), 'parley-watermarks-')), 'store.sqlite')}`;

async function connect(discord: FakeDiscord, shard?: { shardId: number; shardCount: number }) {
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel],
    rest: { api: discord.apiUrl },
    ...(shard ? { shards: [shard.shardId], shardCount: shard.shardCount } : {}),
  });
  clients.push(client);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(discord.token);
  await ready;
  return client;
}

/** A process's catch-up: nothing is written by the timer, only when the test closes it. */
function process(openedStore: Store): MissedMessages {
  return createMissedMessages({
    outbound: createDiscordOutbound(),
    logger,
    stored: createStoredWatermarks({ store: openedStore.namespace('discord-catch-up') }),
    flushIntervalMs: 60 * 60_000,
  });
}

async function messageOf(client: Client, channelId: string, messageId: string): Promise<Message> {
  const channel = (await client.channels.fetch(channelId)) as TextChannel;
  return channel.messages.fetch(messageId);
}

async function catchUp(missed: MissedMessages, client: Client, shardId = 0) {
  const handedOn: string[] = [];
  const report = await missed.catchUp({ client, shardId, answer: (message) => handedOn.push(message.id) });
  return { handedOn, report };
}

describe('stored catch-up watermarks', () => {
  it('a process killed between writes catches up from the older mark without answering twice', async () => {
    fake = await startFakeDiscord();
    store = openStore({ storeUrl: sqliteStoreUrl(), logger });
    const client = await connect(fake);
    const general = fake.textChannelIds[0] ?? '';
    const first = process(store);
    await catchUp(first, client);
    const activeId = fake.sendUserMessage({ channelId: general, content: 'hi', mentionsBot: true });
    first.noteActive(await messageOf(client, general, activeId));
    // The last write before the kill.
    await first.close();
    // Then a mention answered (a reply that references it), which no write recorded.
    const answeredId = fake.sendUserMessage({ channelId: general, content: 'answered', mentionsBot: true });
    const answered = await messageOf(client, general, answeredId);
    first.noteSeen(answered);
    first.noteSeen(await answered.reply('an answer'));
    // And one answered in thread mode: in a thread parley opened from it.
    const threadedId = fake.sendUserMessage({
      channelId: general,
      content: 'in a thread',
      mentionsBot: true,
    });
    const threaded = await messageOf(client, general, threadedId);
    first.noteSeen(threaded);
    await threaded.startThread({ name: 'In a thread' });
    // Asked while no process ran.
    const missedId = fake.sendUserMessage({
      channelId: general,
      content: 'asked meanwhile',
      mentionsBot: true,
    });

    const second = process(store);
    const { handedOn, report } = await catchUp(second, client);
    expect(report.messagesRead).toBe(4);
    expect(handedOn).toEqual([missedId]);
  });

  it('each process stores and catches up on its own shards only', async () => {
    fake = await startFakeDiscord();
    const discord = fake;
    store = openStore({ storeUrl: sqliteStoreUrl(), logger });
    // Guilds made until both of two shards own one (ids are time-based, so which shard is not fixed).
    const channelOfShard = new Map<number, string>([
      [shardOfGuild(discord.guildId, 2), discord.textChannelIds[0] ?? ''],
    ]);
    while (channelOfShard.size < 2) {
      const created = discord.createGuild();
      channelOfShard.set(shardOfGuild(created.guildId, 2), created.textChannelIds[0] ?? '');
    }
    const shards = [0, 1].map((shardId) => ({ shardId, channelId: channelOfShard.get(shardId) ?? '' }));
    const running = await Promise.all(
      shards.map(async (shard) => ({
        ...shard,
        client: await connect(discord, { shardId: shard.shardId, shardCount: 2 }),
        missed: process(store as Store),
      })),
    );
    for (const { client, missed, shardId, channelId } of running) {
      await catchUp(missed, client, shardId);
      const activeId = discord.sendUserMessage({ channelId, content: 'hi', mentionsBot: true });
      missed.noteActive(await messageOf(client, channelId, activeId));
      await missed.close();
    }
    const gapIds = running.map(({ channelId }) =>
      discord.sendUserMessage({ channelId, content: 'asked meanwhile', mentionsBot: true }),
    );

    // Shard 0's new process first: it writes its shard back, and leaves shard 1's as it was.
    const [zero, one] = running as [(typeof running)[0], (typeof running)[0]];
    const newZero = process(store);
    expect((await catchUp(newZero, zero.client, 0)).handedOn).toEqual([gapIds[0]]);
    await newZero.close();
    const newOne = process(store);
    expect((await catchUp(newOne, one.client, 1)).handedOn).toEqual([gapIds[1]]);
  });
});
