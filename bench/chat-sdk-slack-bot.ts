import { createSlackAdapter } from '@chat-adapter/slack';
import { createMemoryState } from '@chat-adapter/state-memory';
import { Chat } from 'chat';
import OpenAI from 'openai';

/**
 * A Slack bot on Vercel's Chat SDK (`chat` + `@chat-adapter/slack`), set up as its documentation
 * shows (the adapter's README, "Socket mode"; chat's docs/streaming.mdx, "Custom streams"): an
 * in-memory state, a mention handler that posts the model's stream, and nothing else. The SDK
 * streams natively (`chat.startStream` … `chat.stopStream`) in a thread and posts and edits
 * elsewhere; its WebClient waits out a 429's Retry-After. The Slack bench runs it as a child
 * process under the same load as parley and the floor.
 */

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`chat sdk bot: ${name} is not set`);
  return value;
}

const model = required('CHAT_MODEL');
const gateway = new OpenAI({
  baseURL: required('GATEWAY_BASE_URL'),
  apiKey: required('GATEWAY_API_KEY'),
  maxRetries: 0,
});

const bot = new Chat({
  userName: 'bench-bot',
  adapters: {
    slack: createSlackAdapter({
      mode: 'socket',
      appToken: required('SLACK_APP_TOKEN'),
      botToken: required('SLACK_BOT_TOKEN'),
      apiUrl: required('SLACK_API_URL'),
    }),
  },
  state: createMemoryState(),
  logger: 'error',
});

bot.onNewMention(async (thread, message) => {
  const stream = await gateway.chat.completions.create({
    model,
    messages: [{ role: 'user', content: message.text }],
    stream: true,
  });
  async function* deltas() {
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content ?? '';
      if (delta !== '') yield delta;
    }
  }
  await thread.post(deltas());
});

process.once('SIGTERM', () => {
  void bot.shutdown().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
});

await bot.initialize();
process.stdout.write('ready\n');
