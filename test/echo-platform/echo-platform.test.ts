import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandServices } from '../../commands/command-services.ts';
import type { RunningPlatform } from '../../commands/platform-adapter.ts';
import { createApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { testCatalog } from '../support/test-bot.ts';
import { createEchoPlatform } from './echo-platform.ts';
import { createEchoRoom, type EchoRoom } from './echo-room.ts';

/**
 * The platform seam, shown with a third platform that lives only in this folder: its variables are
 * read and checked with the core's, it is started through `PlatformAdapter`, and chat, buttons and
 * commands work there as on Discord and Slack, with no file in src/ (or commands/, adapters/, bin/)
 * changed or even aware of it.
 */
const apiKey = 'echo-platform-key-0123456789';
const repositoryRoot = resolve(import.meta.dirname, '../..');

let fake: FakeGateway;
let room: EchoRoom;
let running: RunningPlatform | undefined;
let close: () => Promise<void> = async () => {};
let workDirectory: string;

beforeEach(async () => {
  fake = await startFakeGateway({ apiKey, models: { 'chat-model': { vision: false } } });
  room = createEchoRoom();
  workDirectory = mkdtempSync(join(tmpdir(), 'parley-echo-'));
  writeFileSync(join(workDirectory, 'models.json'), JSON.stringify(testCatalog));
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await close();
  await fake.close();
  rmSync(workDirectory, { recursive: true, force: true });
});

function environment(extra: Record<string, string> = {}) {
  return {
    GATEWAY_BASE_URL: fake.baseUrl,
    GATEWAY_API_KEY: apiKey,
    CHAT_MODEL: 'chat-model',
    VISION_MODEL: 'chat-model',
    STRUCTURED_MODEL: 'chat-model',
    MODEL_CAPABILITIES_FILE: join(workDirectory, 'models.json'),
    STORE_URL: 'memory://',
    GATEWAY_MAX_RETRIES: '0',
    ...extra,
  };
}

async function startEcho() {
  const echo = createEchoPlatform({ room });
  const config = loadConfig({
    environment: environment({ ECHO_BOT_NAME: 'echo-bot' }),
    envFilePath: join(workDirectory, 'no.env'),
    platforms: { echo: echo.configSchema },
  });
  const settings = config.platforms.echo;
  if (settings === undefined) throw new Error('ECHO_BOT_NAME did not turn the echo platform on');
  const { logger } = createCapturedLogger(config.secrets);
  const app = createApp({ config, logger });
  const services = createCommandServices({ app });
  close = async () => {
    await services.close();
    await app.close();
  };
  running = await echo.start({
    services,
    settings,
    config,
    logger,
    coordination: app.coordination,
    store: app.store,
  });
  return { config, settings };
}

const finished = (channel: string) => () =>
  room
    .messages(channel)
    .find((message) => !message.isPrivate && message.actions.some((action) => action.label === 'Regenerate'));

describe('a third platform, plugged in through PlatformAdapter', () => {
  it('reads its own variable with the core’s: its settings when set, nothing when not, its problems in the one message', () => {
    const echo = createEchoPlatform({ room });
    const load = (extra: Record<string, string>) =>
      loadConfig({
        environment: environment(extra),
        envFilePath: join(workDirectory, 'no.env'),
        platforms: { echo: echo.configSchema },
      });
    expect(load({ ECHO_BOT_NAME: 'echo-bot' }).platforms.echo).toEqual({ botName: 'echo-bot' });
    expect(load({}).platforms.echo).toBeUndefined();
    // A platform that runs as a service turns the health server on, like Discord and Slack.
    expect(load({ ECHO_BOT_NAME: 'echo-bot' }).health.port).toBe(8080);
    expect(load({}).health.port).toBeUndefined();
    try {
      load({ ECHO_BOT_NAME: 'echo-bot', GATEWAY_TIMEOUT_MS: 'soon' });
      expect.unreachable('a wrong core variable must stop start-up');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toMatch(/^GATEWAY_TIMEOUT_MS:/);
    }
  });

  it('answers a message with the model’s exact reply, and Regenerate answers it again', async () => {
    await startEcho();
    fake.enqueue({ endpoint: 'chat', text: 'Hello from the model, in **three** chunks of words.' });
    room.say({ channel: 'general', userId: 'ada', text: 'Say hello' });
    const first = await room.waitFor(finished('general'));
    expect(first.text).toBe('Hello from the model, in **three** chunks of words.');
    expect(fake.requests.at(-1)?.body).toMatchObject({
      model: 'chat-model',
      stream: true,
      messages: expect.arrayContaining([expect.objectContaining({ role: 'user' })]),
    });

    const regenerate = first.actions.find((action) => action.label === 'Regenerate');
    fake.enqueue({ endpoint: 'chat', text: 'A second answer.' });
    room.press({ channel: 'general', userId: 'ada', messageId: first.id, actionId: regenerate?.id ?? '' });
    const second = await room.waitFor(() =>
      room.messages('general').find((message) => message.text === 'A second answer.'),
    );
    expect(second.isPrivate).toBe(false);
  });

  it('runs the shared commands: /help lists them, privately', async () => {
    await startEcho();
    room.runCommand({ channel: 'general', userId: 'ada', name: 'help', text: '' });
    const help = await room.waitFor(() => room.messages('general').find((message) => message.isPrivate));
    expect(help.text).toContain('/imagine');
    expect(help.text).toContain('/summarize');
  });

  it('lives in its own folder: it imports only src/ and commands/, and nothing outside knows it', () => {
    const folder = 'test/echo-platform';
    const ownFiles = readdirSync(join(repositoryRoot, folder)).filter((name) => name.endsWith('.ts'));
    const reachesOutside = ownFiles.flatMap((name) => {
      const text = readFileSync(join(repositoryRoot, folder, name), 'utf8');
      return [...text.matchAll(/from\s+'(\.[^']+)'/g)]
        .map((match) => relative(repositoryRoot, resolve(repositoryRoot, folder, match[1] ?? '')))
        .filter((target) => !/^(src|commands|test\/echo-platform)\//.test(target))
        .filter((target) => !name.endsWith('.test.ts') || !target.startsWith('test/'))
        .map((target) => `${name} imports ${target}`);
    });
    expect(reachesOutside).toEqual([]);
    const knowers = ['src', 'commands', 'adapters', 'bin'].flatMap((top) =>
      filesUnder(top).filter((file) =>
        /echo-platform|createEchoPlatform|ECHO_BOT_NAME/.test(readFileSync(file, 'utf8')),
      ),
    );
    expect(knowers).toEqual([]);
  });
});

function filesUnder(directory: string): string[] {
  const absolute = join(repositoryRoot, directory);
  return readdirSync(absolute).flatMap((entry) => {
    const path = join(absolute, entry);
    if (statSync(path).isDirectory()) return filesUnder(relative(repositoryRoot, path));
    return path.endsWith('.ts') ? [path] : [];
  });
}
