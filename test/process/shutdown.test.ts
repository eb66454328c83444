import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * Shutdown of the real process: SIGTERM must end it, within SHUTDOWN_GRACE_MS at the latest, however
 * the platforms are doing; a forced exit says so and exits non-zero.
 */
const apiKey = 'shutdown-test-key-0123456789';
let gateway: FakeGateway | undefined;
let discord: FakeDiscord | undefined;
let bot: BotProcess | undefined;

afterEach(async () => {
  bot?.kill('SIGKILL');
  await bot?.exited;
  await Promise.all([gateway?.close(), discord?.close()]);
  bot = undefined;
  gateway = undefined;
  discord = undefined;
});

async function startBotOnDiscord(environment: Record<string, string> = {}): Promise<BotProcess> {
  gateway = await startFakeGateway({ apiKey });
  discord = await startFakeDiscord();
  const workDirectory = mkdtempSync(join(tmpdir(), 'parley-shutdown-'));
  const started = startBotProcess({
    workingDirectory: workDirectory,
    environment: {
      GATEWAY_BASE_URL: gateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_IDS: discord.guildId,
      STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
      ...environment,
    },
  });
  await started.waitForLog((line) => line.msg === 'parley running');
  return started;
}

describe('shutting down', () => {
  it('exits 0 on SIGTERM when all is well', async () => {
    bot = await startBotOnDiscord();
    bot.kill('SIGTERM');
    expect(await bot.exited).toEqual({ code: 0, signal: null });
    expect(bot.logLines.map((line) => line.msg)).toContain('stopped');
  });

  it('exits on SIGTERM after the Discord connection was lost', async () => {
    bot = await startBotOnDiscord({ SHUTDOWN_GRACE_MS: '4000' });
    await discord?.close();
    // Give the client time to notice and start reconnecting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const signalledAtMs = Date.now();
    bot.kill('SIGTERM');
    const ended = await bot.exited;
    expect(ended.signal).toBeNull();
    expect(Date.now() - signalledAtMs).toBeLessThan(6_000);
    expect(typeof ended.code).toBe('number');
  });
});
