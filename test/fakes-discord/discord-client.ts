import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import type { FakeDiscord } from '../fakes/discord/index.ts';

/** The real discord.js client pointed at the fake, logged in and ready. */
export async function connectClient(
  fake: FakeDiscord,
  restOptions: Record<string, unknown> = {},
): Promise<Client<true>> {
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel],
    rest: { api: fake.apiUrl, ...restOptions },
  });
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(fake.token);
  return ready;
}
