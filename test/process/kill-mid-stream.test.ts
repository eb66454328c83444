import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import { createStore } from '../../src/state/create-store.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { appMention, type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * kill -9 in the middle of a streamed reply, then a restart on the same store: the half-written
 * message is finished (its text, a note, Regenerate instead of Stop) and the turn is in history,
 * marked as interrupted.
 */
const apiKey = 'kill-test-key-0123456789';
let gateway: FakeGateway | undefined;
let slack: FakeSlack | undefined;
let discord: FakeDiscord | undefined;
const bots: BotProcess[] = [];

afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await Promise.all([gateway?.close(), slack?.close(), discord?.close()]);
  gateway = undefined;
  slack = undefined;
  discord = undefined;
});

async function loadHistory(storeFile: string, conversationKey: string) {
  const logger = pino({ level: 'silent' });
  const store = createStore({ storeUrl: `sqlite://${storeFile}`, namespace: 'history', logger });
  try {
    return await createHistoryStore({ store, maxTurns: 50, logger }).load(conversationKey);
  } finally {
    await store.disconnect();
  }
}

function startDiscordBot(storeFile: string): BotProcess {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: gateway?.baseUrl ?? '',
      GATEWAY_API_KEY: apiKey,
      DISCORD_TOKEN: discord?.token ?? '',
      DISCORD_API_URL: discord?.apiUrl ?? '',
      DISCORD_GUILD_IDS: discord?.guildId ?? '',
      STORE_URL: `sqlite://${storeFile}`,
    },
  });
  bots.push(bot);
  return bot;
}

function startSlackBot(storeFile: string): BotProcess {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: gateway?.baseUrl ?? '',
      GATEWAY_API_KEY: apiKey,
      SLACK_BOT_TOKEN: slack?.botToken ?? '',
      SLACK_SIGNING_SECRET: slack?.signingSecret ?? '',
      SLACK_API_URL: slack?.apiUrl ?? '',
      PORT: '0',
      STORE_URL: `sqlite://${storeFile}`,
    },
  });
  bots.push(bot);
  return bot;
}

describe('kill -9 mid-stream', () => {
  it('on Slack: the next start finishes the streamed message and records the turn as interrupted', async () => {
    gateway = await startFakeGateway({ apiKey });
    slack = await startFakeSlack();
    const storeFile = join(mkdtempSync(join(tmpdir(), 'parley-kill-')), 'parley.sqlite');
    const first = startSlackBot(storeFile);
    const listening = await first.waitForLog((line) => line.mode === 'http' && typeof line.url === 'string');
    slack.appUrl = String(listening.url).replace('0.0.0.0', '127.0.0.1');
    gateway.enqueue({ text: 'tick '.repeat(400), chunkSize: 10, delayBetweenChunksMs: 100 });
    const mention = appMention({ channel: 'C0KILLED01', text: 'count slowly', user: 'U0ADA00001' });
    await slack.deliverEvent({ event: mention });
    const stream = await slack.waitFor(
      () => slack?.streams.find((entry) => entry.writes.length >= 3 && entry.state === 'streaming'),
      10_000,
    );
    first.kill('SIGKILL');
    await first.exited;
    const shownAtDeath = stream.writes.map((write) => write.markdownText).join('');

    const second = startSlackBot(storeFile);
    await second.waitForLog((line) => line.msg === 'finished replies interrupted by a restart', 15_000);
    const [message] = slack.messages('C0KILLED01', String(mention.ts));
    const markdown = (message?.blocks?.[0] as { text?: string } | undefined)?.text ?? message?.text ?? '';
    // All the text the person saw stays (read back from Slack: the journal may be up to 2 s behind).
    expect(markdown.startsWith(shownAtDeath.trimEnd())).toBe(true);
    expect(markdown).toMatch(/_⚠ interrupted by a restart — press Regenerate to ask again_$/);
    expect(JSON.stringify(message?.blocks)).toContain('Regenerate');
    expect(JSON.stringify(message?.blocks)).not.toContain('"Stop"');
    second.kill('SIGTERM');
    await second.exited;

    const store = createStore({
      storeUrl: `sqlite://${storeFile}`,
      namespace: 'history',
      logger: pino({ level: 'silent' }),
    });
    try {
      const history = createHistoryStore({ store, maxTurns: 50, logger: pino({ level: 'silent' }) });
      const conversation = await history.load(`slack:${slack.workspace.teamId}:C0KILLED01:${mention.ts}`);
      expect(conversation.map((turn) => [turn.role, turn.isInterrupted ?? false])).toEqual([
        ['user', false],
        ['assistant', true],
      ]);
      expect(conversation[1]?.text.startsWith('tick tick')).toBe(true);
    } finally {
      await store.disconnect();
    }
  }, 40_000);

  it('on Discord: the next start finishes the message, swaps Stop for Regenerate and records the turn', async () => {
    gateway = await startFakeGateway({ apiKey });
    discord = await startFakeDiscord();
    const fakeDiscord = discord;
    const storeFile = join(mkdtempSync(join(tmpdir(), 'parley-kill-')), 'parley.sqlite');
    const first = startDiscordBot(storeFile);
    await first.waitForLog((line) => line.msg === 'parley running');
    gateway.enqueue({ text: 'tock '.repeat(400), chunkSize: 10, delayBetweenChunksMs: 100 });
    const channelId = fakeDiscord.textChannelIds[0] ?? '';
    fakeDiscord.sendUserMessage({ channelId, content: 'count slowly', mentionsBot: true });
    const streaming = await fakeDiscord.waitFor(
      () =>
        fakeDiscord
          .messages(channelId)
          .find((message) => message.author.id === fakeDiscord.bot.id && message.revisions.length >= 3),
      { timeoutMs: 10_000 },
    );
    expect(JSON.stringify(streaming.components)).toContain('Stop');
    first.kill('SIGKILL');
    await first.exited;
    const shownAtDeath = fakeDiscord.message(streaming.id)?.content ?? '';

    const second = startDiscordBot(storeFile);
    await second.waitForLog((line) => line.msg === 'finished replies interrupted by a restart', 15_000);
    const finished = fakeDiscord.message(streaming.id);
    expect(finished?.content).toBe(
      `${shownAtDeath}\n\n_⚠ interrupted by a restart — press Regenerate to ask again_`,
    );
    expect(JSON.stringify(finished?.components)).toContain('Regenerate');
    expect(JSON.stringify(finished?.components)).not.toContain('Stop');
    const history = await loadHistory(storeFile, `discord:${fakeDiscord.guildId}:${channelId}`);
    expect(history.map((turn) => [turn.role, turn.isInterrupted ?? false])).toEqual([
      ['user', false],
      ['assistant', true],
    ]);
  }, 40_000);

  it('on Discord: a drawing killed midway says it stopped, once parley is back', async () => {
    gateway = await startFakeGateway({ apiKey });
    discord = await startFakeDiscord();
    const fakeDiscord = discord;
    const storeFile = join(mkdtempSync(join(tmpdir(), 'parley-kill-')), 'parley.sqlite');
    const first = startDiscordBot(storeFile);
    await first.waitForLog((line) => line.msg === 'parley running');
    gateway.enqueue({ endpoint: 'images', latencyMs: 30_000 });
    const channelId = fakeDiscord.textChannelIds[0] ?? '';
    const interactionId = fakeDiscord.sendSlashCommand({
      name: 'imagine',
      channelId,
      options: { prompt: 'a slow fox' },
    });
    const progress = await fakeDiscord.waitFor(
      () => {
        const originalId = fakeDiscord.interaction(interactionId)?.originalMessageId;
        const original = originalId ? fakeDiscord.message(originalId) : undefined;
        return original?.content.startsWith('🎨 drawing') ? original : undefined;
      },
      { timeoutMs: 10_000 },
    );
    // The first progress line is in; give its journal record a moment, as a drawing takes seconds.
    await new Promise((resolve) => setTimeout(resolve, 300));
    first.kill('SIGKILL');
    await first.exited;

    const second = startDiscordBot(storeFile);
    await second.waitForLog((line) => line.msg === 'finished replies interrupted by a restart', 15_000);
    expect(fakeDiscord.message(progress.id)?.content).toMatch(
      /^🎨 drawing 1 image….*\n\n_⚠ stopped: parley restarted before this was done — please run the command again_$/s,
    );
  }, 40_000);
});
