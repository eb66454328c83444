import { Client, Events, GatewayIntentBits, type Message } from 'discord.js';
import OpenAI from 'openai';

/**
 * The floor: the least a streaming Discord bot can do with the same libraries. On a mention it asks
 * the gateway for a stream with the `openai` SDK, posts on the first delta, edits at most once a
 * second while text arrives, and makes one final edit. No history, typing, buttons or scheduler:
 * discord.js alone keeps it within the rate limits. The bench runs it as a child process under the
 * same load as parley and prints parley's figures as ratios to it.
 */

const minEditIntervalMs = 1000;

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`floor bot: ${name} is not set`);
  return value;
}

const model = required('CHAT_MODEL');
const gateway = new OpenAI({
  baseURL: required('GATEWAY_BASE_URL'),
  apiKey: required('GATEWAY_API_KEY'),
  maxRetries: 0,
});
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  rest: { api: required('DISCORD_API_URL') },
  allowedMentions: { parse: [] },
});

client.on(Events.MessageCreate, (message) => {
  const botUserId = client.user?.id;
  if (botUserId === undefined || message.author.bot || !message.mentions.users.has(botUserId)) return;
  answer(message).catch((error: unknown) => console.error('floor bot: reply failed', error));
});

async function answer(message: Message): Promise<void> {
  if (!message.channel.isSendable()) return;
  const channel = message.channel;
  const stream = await gateway.chat.completions.create({
    model,
    messages: [{ role: 'user', content: message.content }],
    stream: true,
  });
  let text = '';
  let shownText = '';
  let reply: Message | undefined;
  let posting: Promise<void> | undefined;
  let editing: Promise<void> | undefined;
  let lastCallAtMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let isFinished = false;

  const edit = () => {
    timer = undefined;
    if (reply === undefined || editing !== undefined || text === shownText) return;
    const sentText = text;
    lastCallAtMs = Date.now();
    editing = reply.edit(sentText).then(() => {
      shownText = sentText;
      editing = undefined;
      scheduleEdit();
    });
  };
  const scheduleEdit = () => {
    if (isFinished || timer !== undefined || editing !== undefined || text === shownText) return;
    timer = setTimeout(edit, Math.max(0, lastCallAtMs + minEditIntervalMs - Date.now()));
  };

  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta.content ?? '';
    if (delta === '') continue;
    text += delta;
    if (posting === undefined) {
      const sentText = text;
      lastCallAtMs = Date.now();
      posting = channel.send(sentText).then((posted) => {
        reply = posted;
        shownText = sentText;
        scheduleEdit();
      });
    } else {
      scheduleEdit();
    }
  }
  isFinished = true;
  clearTimeout(timer);
  await posting;
  while (editing !== undefined) await editing;
  if (reply !== undefined && text !== shownText) await reply.edit(text);
}

process.once('SIGTERM', () => {
  // A normal exit, so that `--cpu-prof` writes its profile.
  client.destroy().finally(() => process.exit(0));
});

client.once(Events.ClientReady, () => process.stdout.write('ready\n'));
await client.login(required('DISCORD_TOKEN'));
