import { randomBytes } from 'node:crypto';
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from '../test/fakes/slack/index.ts';
import type { BotProcess } from '../test/support/bot-process.ts';
import { type FaultProxy, startFaultProxy } from '../test/support/fault-proxy.ts';
import {
  baseMark,
  baseTextSince,
  freePort,
  isRunning,
  type ObservedText,
  startWorldBase,
  type World,
  type WorldMark,
  type WorldSettings,
  waitUntilRunning,
} from './world.ts';

/** parley on the fake Slack in HTTP mode, as a child process. */
export interface SlackWorld extends World {
  readonly slack: FakeSlack;
  /** Between the bot and Slack's Web API, when the world was started with one. */
  readonly apiProxy: FaultProxy | undefined;
  /** A fresh channel id, so a scenario's messages are its own. */
  newChannel(): string;
  /** The conversation key parley uses for a thread in a channel (or a DM, without a thread). */
  conversationKey(channel: string, threadTs?: string): string;
  /** Where each bot process listens for Slack's requests (more than one with `processCount`). */
  readonly appUrls: readonly string[];
}

interface SlackPlatformMark {
  readonly callCount: number;
  readonly atMs: number;
}

let channelCount = 0;

/**
 * Starts the fakes and the bot in HTTP mode (Slack signs every request it sends to the bot), and
 * resolves once the bot listens. With `hasApiProxy`, Web API calls go through a fault proxy.
 */
export async function startSlackWorld({
  settings = {},
  fakeSlackOptions = {},
  hasApiProxy = false,
  processCount = 1,
}: {
  settings?: WorldSettings;
  fakeSlackOptions?: FakeSlackOptions;
  hasApiProxy?: boolean;
  /** Bot processes of one app on the one store (Redis), each with its own HTTP endpoint. */
  processCount?: number;
} = {}): Promise<SlackWorld> {
  const base = await startWorldBase(settings);
  const slack = await startFakeSlack({
    botToken: `xoxb-${randomBytes(16).toString('hex')}`,
    appToken: `xapp-${randomBytes(16).toString('hex')}`,
    signingSecret: randomBytes(16).toString('hex'),
    ...fakeSlackOptions,
  });
  const apiProxy = hasApiProxy ? await startFaultProxy({ targetOrigin: slack.origin }) : undefined;
  const channels = new Set<string>();
  const environment = {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_API_URL: apiProxy === undefined ? slack.apiUrl : `${apiProxy.origin}/api/`,
    PORT: '0',
  };
  const appUrls: string[] = [];
  const startListening = async (extraEnvironment: Record<string, string> = {}) => {
    const bot = base.startBot({ ...environment, ...extraEnvironment });
    await waitUntilRunning(bot);
    const listening = await bot.waitForLog((line) => line.mode === 'http' && typeof line.url === 'string');
    return { bot, url: String(listening.url).replace('0.0.0.0', '127.0.0.1') };
  };
  const startBot = async (): Promise<BotProcess> => {
    const { bot, url } = await startListening();
    slack.appUrl = url;
    appUrls[0] = url;
    return bot;
  };
  const platformMark = (atMs: number): SlackPlatformMark => ({ callCount: slack.calls.length, atMs });
  const startMark = baseMark({ base, platform: platformMark(0) });
  let bot: BotProcess;
  try {
    bot = await startBot();
    for (let index = 1; index < processCount; index += 1) {
      const extra = await startListening({ HEALTH_PORT: String(await freePort()) });
      appUrls.push(extra.url);
    }
  } catch (error) {
    await base.close();
    await Promise.all([slack.close(), apiProxy?.close()]);
    throw error;
  }
  return {
    gateway: base.gateway,
    gatewayRequests: base.gatewayRequests,
    gatewayProxy: base.gatewayProxy,
    storeUrl: base.storeUrl,
    workDirectory: base.workDirectory,
    healthPort: base.healthPort,
    startMark,
    secrets: [base.gatewayApiKey, slack.botToken, slack.appToken, slack.signingSecret],
    slack,
    apiProxy,
    get bot() {
      return bot;
    },
    async restart() {
      bot = await startBot();
      return bot;
    },
    isBotRunning: () => isRunning(bot),
    newChannel() {
      channelCount += 1;
      const channel = `C0FAULT${String(channelCount).padStart(3, '0')}`;
      channels.add(channel);
      return channel;
    },
    conversationKey: (channel, threadTs) =>
      `slack:${slack.workspace.teamId}:${channel}${threadTs === undefined ? '' : `:${threadTs}`}`,
    appUrls,
    mark: () => baseMark({ base, platform: platformMark(Date.now()) }),
    textSince(mark: WorldMark): ObservedText[] {
      const since = mark.platform as SlackPlatformMark;
      const texts = baseTextSince({ base, mark });
      for (const call of slack.calls.slice(since.callCount)) {
        texts.push({ source: `Slack ${call.method}`, text: JSON.stringify(call.arguments) });
      }
      for (const channel of channels) {
        for (const message of slack.messages(channel)) {
          if (message.updatedAtMs < since.atMs) continue;
          texts.push({
            source: `Slack message in ${channel}`,
            text: `${message.text}\n${JSON.stringify(message.blocks)}`,
          });
        }
      }
      for (const message of slack.ephemeralMessages.filter((entry) => entry.atMs >= since.atMs)) {
        texts.push({
          source: `Slack ephemeral in ${message.channel}`,
          text: `${message.text}\n${JSON.stringify(message.blocks)}`,
        });
      }
      return texts;
    },
    async close() {
      await base.close();
      await Promise.all([slack.close(), apiProxy?.close()]);
    },
  };
}
