import { App, LogLevel } from '@slack/bolt';
import OpenAI from 'openai';

/**
 * The Slack floor: the least a streaming Slack bot does with the same libraries. On a mention it
 * asks the gateway for a stream with the `openai` SDK, posts in the mention's thread on the first
 * delta (`chat.postMessage`), updates at most once a second while text arrives (`chat.update`), and
 * makes one final update. No history, status, buttons or budget: Bolt's WebClient alone keeps it
 * within the limits (it waits out a 429's Retry-After). The Slack bench runs it as a child process
 * under the same load as parley.
 */

const minUpdateIntervalMs = 1000;

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`slack floor bot: ${name} is not set`);
  return value;
}

const model = required('CHAT_MODEL');
const gateway = new OpenAI({
  baseURL: required('GATEWAY_BASE_URL'),
  apiKey: required('GATEWAY_API_KEY'),
  maxRetries: 0,
});
const app = new App({
  token: required('SLACK_BOT_TOKEN'),
  appToken: required('SLACK_APP_TOKEN'),
  socketMode: true,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: required('SLACK_API_URL') },
});

app.event('app_mention', async ({ event, client }) => {
  const threadTs = event.thread_ts ?? event.ts;
  const stream = await gateway.chat.completions.create({
    model,
    messages: [{ role: 'user', content: event.text }],
    stream: true,
  });
  let text = '';
  let shownText = '';
  let ts: string | undefined;
  let posting: Promise<void> | undefined;
  let updating: Promise<void> | undefined;
  let lastCallAtMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let isFinished = false;

  const update = () => {
    timer = undefined;
    if (ts === undefined || updating !== undefined || text === shownText) return;
    const sentText = text;
    lastCallAtMs = Date.now();
    updating = client.chat.update({ channel: event.channel, ts, text: sentText }).then(() => {
      shownText = sentText;
      updating = undefined;
      scheduleUpdate();
    });
  };
  const scheduleUpdate = () => {
    if (isFinished || timer !== undefined || updating !== undefined || text === shownText) return;
    timer = setTimeout(update, Math.max(0, lastCallAtMs + minUpdateIntervalMs - Date.now()));
  };

  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta.content ?? '';
    if (delta === '') continue;
    text += delta;
    if (posting === undefined) {
      const sentText = text;
      lastCallAtMs = Date.now();
      posting = client.chat
        .postMessage({ channel: event.channel, thread_ts: threadTs, text: sentText })
        .then((response) => {
          ts = response.ts;
          shownText = sentText;
          scheduleUpdate();
        });
    } else {
      scheduleUpdate();
    }
  }
  isFinished = true;
  clearTimeout(timer);
  await posting;
  while (updating !== undefined) await updating;
  if (ts !== undefined && text !== shownText) await client.chat.update({ channel: event.channel, ts, text });
});

process.once('SIGTERM', () => {
  app.stop().finally(() => process.exit(0));
});

await app.start();
process.stdout.write('ready\n');
