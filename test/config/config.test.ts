import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError, postgresStoreWarning, projectRoot } from '../../src/config.ts';

const missingEnvFile = join(tmpdir(), 'parley-no-such-env-file');
const required = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1', GATEWAY_API_KEY: 'secret-key-123' };

function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    loadParleyConfig({ environment, envFilePath: missingEnvFile });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('needs only the two gateway variables and fills in every default', () => {
    const config = loadParleyConfig({ environment: required, envFilePath: missingEnvFile });
    expect(config.gateway).toEqual({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      apiKey: 'secret-key-123',
      timeoutMs: 60_000,
      firstByteTimeoutMs: 20_000,
      maxRetries: 2,
      imageTimeoutMs: 180_000,
    });
    expect(config.models.chat).toBe('gpt-4o-mini');
    expect(config.storeUrl).toBe(`sqlite://${join(projectRoot, 'data/parley.sqlite')}`);
    expect(config.models.catalog.models['gpt-4o-mini']?.vision).toBe(true);
    expect(config.secrets).toContain('secret-key-123');
  });

  it('names every wrong variable at once, with how to fix it', () => {
    const problems = problemsOf({
      GATEWAY_BASE_URL: 'not a url',
      LOG_LEVEL: 'loud',
      GATEWAY_TIMEOUT_MS: '-5',
    });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/GATEWAY_BASE_URL: is not a URL: "not a url"/);
    expect(problems.join('\n')).toMatch(/GATEWAY_API_KEY: is required/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL: must be one of/);
    expect(problems.join('\n')).toMatch(/GATEWAY_TIMEOUT_MS/);
  });

  it('reads .env, lets the environment win, and treats empty values as unset', () => {
    const directory = mkdtempSync(join(tmpdir(), 'parley-config-'));
    const envFile = join(directory, '.env');
    writeFileSync(
      envFile,
      'GATEWAY_BASE_URL=http://from-file/api/v1\nGATEWAY_API_KEY=file-key\nCHAT_MODEL=file-model\n',
    );
    const config = loadParleyConfig({
      environment: { CHAT_MODEL: 'env-model', GATEWAY_API_KEY: '' },
      envFilePath: envFile,
    });
    expect(config.gateway.baseUrl).toBe('http://from-file/api/v1');
    expect(config.gateway.apiKey).toBe('file-key');
    expect(config.models.chat).toBe('env-model');
  });

  it('rejects a capabilities file that is missing, not JSON, or of the wrong shape', () => {
    const directory = mkdtempSync(join(tmpdir(), 'parley-models-'));
    const notJson = join(directory, 'bad.json');
    writeFileSync(notJson, '{ nope');
    const wrongShape = join(directory, 'shape.json');
    writeFileSync(wrongShape, JSON.stringify({ models: { x: { vision: 'yes' } } }));
    expect(problemsOf({ ...required, MODEL_CAPABILITIES_FILE: join(directory, 'absent.json') })[0]).toMatch(
      /does not exist/,
    );
    expect(problemsOf({ ...required, MODEL_CAPABILITIES_FILE: notJson })[0]).toMatch(/not valid JSON/);
    expect(problemsOf({ ...required, MODEL_CAPABILITIES_FILE: wrongShape })[0]).toMatch(/models\.x\.vision/);
  });

  it('checks the store URL and the capabilities file in the same message as the variables', () => {
    const problems = problemsOf({
      GATEWAY_API_KEY: 'k',
      STORE_URL: 'mongodb://x',
      MODEL_CAPABILITIES_FILE: '/nope/models.json',
    });
    expect(problems.join('\n')).toMatch(/GATEWAY_BASE_URL: is required/);
    expect(problems.join('\n')).toMatch(/STORE_URL: .*Accepted forms/);
    expect(problems.join('\n')).toMatch(/MODEL_CAPABILITIES_FILE \/nope\/models.json does not exist/);
  });

  it('treats a store password as a secret', () => {
    const config = loadParleyConfig({
      environment: { ...required, STORE_URL: 'redis://:p%40ss@127.0.0.1:6379' },
      envFilePath: missingEnvFile,
    });
    expect(config.secrets).toContain('p@ss');
  });

  it('strips a trailing slash from the base URL so paths join cleanly', () => {
    const config = loadParleyConfig({
      environment: { ...required, GATEWAY_BASE_URL: 'https://gw.example/api/v1/' },
      envFilePath: missingEnvFile,
    });
    expect(config.gateway.baseUrl).toBe('https://gw.example/api/v1');
  });

  it('says "not a URL" for a malformed URL and "is required" only when it is missing', () => {
    expect(problemsOf({ GATEWAY_API_KEY: 'k', GATEWAY_BASE_URL: 'gateway.example/api/v1' })).toEqual([
      'GATEWAY_BASE_URL: is not a URL: "gateway.example/api/v1"; expected one like https://gateway.example/api/v1',
    ]);
    expect(problemsOf({ GATEWAY_API_KEY: 'k' })).toEqual([
      'GATEWAY_BASE_URL: is required: an http(s) URL like https://gateway.example/api/v1',
    ]);
    expect(problemsOf({ ...required, DISCORD_API_URL: 'ftp://discord.example' })[0]).toMatch(
      /^DISCORD_API_URL: must start with http:\/\/ or https:\/\//,
    );
  });

  it('refuses a base URL that names an operation, and warns about one without an API version', () => {
    expect(
      problemsOf({ ...required, GATEWAY_BASE_URL: 'https://gw.example/api/v1/chat/completions' }),
    ).toEqual([
      'GATEWAY_BASE_URL: ends in /chat/completions, the address of one operation; set the base it sits under instead: https://gw.example/api/v1 (parley adds /chat/completions itself)',
    ]);
    const withoutVersion = loadParleyConfig({
      environment: { ...required, GATEWAY_BASE_URL: 'https://gw.example' },
      envFilePath: missingEnvFile,
    });
    expect(withoutVersion.warnings).toEqual([
      expect.stringMatching(/does not end in an API version such as \/api\/v1/),
    ]);
    expect(withoutVersion.warnings[0]).toContain('https://gw.example/chat/completions');
    expect(loadParleyConfig({ environment: required, envFilePath: missingEnvFile }).warnings).toEqual([]);
  });

  it('takes a Postgres store and says at start-up that locks, budgets and dedupe stay in one process', () => {
    const config = loadParleyConfig({
      environment: { ...required, STORE_URL: 'postgres://parley:secret-pw@db.example:5432/parley' },
      envFilePath: missingEnvFile,
    });
    expect(config.storeUrl).toBe('postgres://parley:secret-pw@db.example:5432/parley');
    expect(config.warnings).toEqual([postgresStoreWarning]);
    expect(postgresStoreWarning).toMatch(/locks, budget counters and duplicate-event checks .* need Redis/);
    expect(config.secrets).toContain('secret-pw');
    expect(
      loadParleyConfig({
        environment: { ...required, STORE_URL: 'redis://127.0.0.1:6379' },
        envFilePath: missingEnvFile,
      }).warnings,
    ).toEqual([]);
  });

  it('reads Discord sharding, and refuses shard ids without a count or beyond it', () => {
    const discord = { ...required, DISCORD_TOKEN: 'token' };
    const sharded = loadParleyConfig({
      environment: { ...discord, DISCORD_SHARD_COUNT: '4', DISCORD_SHARD_IDS: '2,3' },
      envFilePath: missingEnvFile,
    });
    expect(sharded.platforms.discord?.sharding).toEqual({ shardIds: [2, 3], shardCount: 4 });
    const everyShard = loadParleyConfig({
      environment: { ...discord, DISCORD_SHARD_COUNT: '2' },
      envFilePath: missingEnvFile,
    });
    expect(everyShard.platforms.discord?.sharding).toEqual({ shardIds: [0, 1], shardCount: 2 });
    const auto = loadParleyConfig({
      environment: { ...discord, DISCORD_SHARD_COUNT: 'auto' },
      envFilePath: missingEnvFile,
    });
    expect(auto.platforms.discord?.sharding).toBe('auto');
    expect(problemsOf({ ...discord, DISCORD_SHARD_IDS: '0' })).toEqual([
      'DISCORD_SHARD_IDS: needs DISCORD_SHARD_COUNT set to the number of shards of the whole bot (not auto)',
    ]);
    expect(problemsOf({ ...discord, DISCORD_SHARD_COUNT: '2', DISCORD_SHARD_IDS: '1,2' })).toEqual([
      'DISCORD_SHARD_IDS: 2 not below DISCORD_SHARD_COUNT 2: shards are numbered from 0',
    ]);
    expect(problemsOf({ ...discord, DISCORD_SHARD_COUNT: 'many' })[0]).toMatch(
      /^DISCORD_SHARD_COUNT: must be auto or a whole number/,
    );
  });

  it('reads the forums of thread-mode channels and the tags of their posts, and refuses a pair that is not one', () => {
    const discord = { ...required, DISCORD_TOKEN: 'token' };
    const config = loadParleyConfig({
      environment: {
        ...discord,
        DISCORD_THREAD_FORUMS: '111111111111111111=222222222222222222, 333333333333333333=444444444444444444',
        DISCORD_FORUM_TAGS: 'question, parley',
      },
      envFilePath: missingEnvFile,
    });
    expect([...(config.platforms.discord?.threadForumIds ?? [])]).toEqual([
      ['111111111111111111', '222222222222222222'],
      ['333333333333333333', '444444444444444444'],
    ]);
    expect(config.platforms.discord?.forumTagNames).toEqual(['question', 'parley']);
    expect(problemsOf({ ...discord, DISCORD_THREAD_FORUMS: '111111111111111111' })[0]).toMatch(
      /^DISCORD_THREAD_FORUMS.*must be channel_id=forum_id pairs/,
    );
  });

  it('runs Slack over Socket Mode without a signing secret, and asks for one only in HTTP mode', () => {
    const slack = { ...required, SLACK_BOT_TOKEN: 'xoxb-1-2-abc' };
    const socket = loadParleyConfig({
      environment: { ...slack, SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' },
      envFilePath: missingEnvFile,
    });
    expect(socket.platforms.slack?.transport).toEqual({ mode: 'socket', appToken: 'xapp-1-A1-2-abc' });
    const http = loadParleyConfig({
      environment: { ...slack, SLACK_SIGNING_SECRET: 'signing-secret-1' },
      envFilePath: missingEnvFile,
    });
    expect(http.platforms.slack?.transport).toEqual({ mode: 'http', signingSecret: 'signing-secret-1' });
    expect(problemsOf(slack)).toEqual([
      'SLACK_SIGNING_SECRET: is required with SLACK_BOT_TOKEN in HTTP mode (Basic Information → Signing Secret); for Socket Mode set SLACK_APP_TOKEN instead',
    ]);
  });

  it('treats an empty value in .env as unset, as it does in the environment', () => {
    const directory = mkdtempSync(join(tmpdir(), 'parley-config-'));
    const envFile = join(directory, '.env');
    writeFileSync(envFile, 'LOG_FORMAT=\nLOG_FILE=\nSELECTABLE_MODELS=\nPORT=\nHEALTH_PORT=\n');
    const config = loadParleyConfig({ environment: required, envFilePath: envFile });
    expect(config.log).toMatchObject({ format: undefined, file: undefined });
    expect(config.health.port).toBeUndefined();
  });

  it('resolves relative paths against the project folder, not the working directory', () => {
    const config = loadParleyConfig({
      environment: {
        ...required,
        LOG_FILE: 'logs/x.log',
        IMAGE_OUTPUT_DIR: 'pictures',
        STORE_URL: 'sqlite://state/p.sqlite',
      },
      envFilePath: missingEnvFile,
    });
    expect(config.log.file).toBe(join(projectRoot, 'logs/x.log'));
    expect(config.platforms.console?.outputDirectory).toBe(join(projectRoot, 'pictures'));
    expect(config.storeUrl).toBe(`sqlite://${join(projectRoot, 'state/p.sqlite')}`);
    expect(
      loadParleyConfig({
        environment: { ...required, LOG_FILE: '/var/log/parley.log' },
        envFilePath: missingEnvFile,
      }).log.file,
    ).toBe('/var/log/parley.log');
  });

  it('serves health checks on 8080 for a platform run, not in the terminal, unless HEALTH_PORT says', () => {
    const load = (environment: Record<string, string>) =>
      loadParleyConfig({ environment: { ...required, ...environment }, envFilePath: missingEnvFile }).health
        .port;
    const discord = { DISCORD_TOKEN: 'token-for-discord' };
    expect(load({})).toBeUndefined();
    expect(load(discord)).toBe(8080);
    expect(load({ ...discord, HEALTH_PORT: '9100' })).toBe(9100);
    expect(load({ ...discord, HEALTH_PORT: 'off' })).toBeUndefined();
    expect(load({ HEALTH_PORT: '0' })).toBe(0);
    expect(problemsOf({ ...required, HEALTH_PORT: 'eighty' })).toEqual([
      'HEALTH_PORT: must be a port number (0–65535) or off, got "eighty"',
    ]);
  });
});
