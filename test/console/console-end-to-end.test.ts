import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createSolidPng,
  type FakeGateway,
  modelChatRequests,
  startFakeGateway,
} from '../fakes/gateway/index.ts';

/**
 * `npm start` as a person uses it: the real process (bin/parley.ts on Node's type stripping) with piped
 * input, against the fake gateway over loopback, with the default SQLite store in a temp folder.
 */
const repositoryRoot = resolve(import.meta.dirname, '../..');
const apiKey = 'console-e2e-key-0123456789';
let fake: FakeGateway;
let workDirectory: string;

beforeAll(async () => {
  fake = await startFakeGateway({ apiKey });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  workDirectory = mkdtempSync(join(tmpdir(), 'parley-console-'));
  writeFileSync(
    join(workDirectory, 'models.json'),
    JSON.stringify({ models: { 'chat-model': { vision: false }, 'vision-model': { vision: true } } }),
  );
});

interface RunResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runParley(input: string, environment: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['bin/parley.ts'], {
      cwd: repositoryRoot,
      env: {
        PATH: process.env.PATH ?? '',
        GATEWAY_BASE_URL: fake.baseUrl,
        GATEWAY_API_KEY: apiKey,
        STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
        LOG_FILE: join(workDirectory, 'parley.log'),
        IMAGE_OUTPUT_DIR: join(workDirectory, 'out'),
        CHAT_MODEL: 'chat-model',
        VISION_MODEL: 'vision-model',
        IMAGE_MODEL: 'image-model',
        MODEL_CAPABILITIES_FILE: join(workDirectory, 'models.json'),
        ...environment,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('error', reject);
    child.on('close', (exitCode) => resolvePromise({ exitCode, stdout, stderr }));
    child.stdin.end(input);
  });
}

const chatRequests = () => modelChatRequests(fake.requests);

describe('the terminal chat (npm start)', () => {
  it('streams a reply, and remembers the conversation after a restart', async () => {
    fake.enqueue({ text: 'Nice to meet you, I will remember that.' });
    const first = await runParley('my name is Ada\n');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain('Nice to meet you, I will remember that.');

    fake.enqueue({ text: 'Your name is Ada.' });
    const second = await runParley('what is my name?\n');
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain('Your name is Ada.');
    const sent = chatRequests()[1]?.body as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent.messages[1]?.content).toMatch(/: my name is Ada$/);
    expect(sent.messages[2]?.content).toBe('Nice to meet you, I will remember that.');

    // The log has the story of both runs, and never the key.
    const log = readFileSync(join(workDirectory, 'parley.log'), 'utf8');
    expect(log).toContain('reply finished');
    expect(log).not.toContain(apiKey);
  });

  it('answers lines in order when several are piped at once, and /reset forgets', async () => {
    fake.enqueue({ text: 'one' });
    fake.enqueue({ text: 'two' });
    fake.enqueue({ text: 'three' });
    const run = await runParley('first\nsecond\n/reset\nthird\n');
    expect(run.stdout.indexOf('one')).toBeLessThan(run.stdout.indexOf('two'));
    expect(run.stdout).toContain('cleared this conversation');
    const third = chatRequests()[2]?.body as { messages: unknown[] };
    expect(third.messages).toHaveLength(2);
  });

  it('/image sends a local file to the vision model; /imagine writes image files', async () => {
    const imagePath = join(workDirectory, 'shot.png');
    writeFileSync(
      imagePath,
      createSolidPng({ widthPx: 3, heightPx: 3, colour: { red: 0, green: 128, blue: 255 } }),
    );
    fake.enqueue({ endpoint: 'chat', text: 'A blue square.' });
    const run = await runParley(`/image ${imagePath} what is this?\n/imagine a blue square\n`);
    expect(run.stdout).toContain('A blue square.');
    const visionRequest = chatRequests()[0]?.body as { model: string; messages: Array<{ content: unknown }> };
    expect(visionRequest.model).toBe('vision-model');
    expect(JSON.stringify(visionRequest.messages.at(-1)?.content)).toContain('data:image/png;base64,');
    const files = readdirSync(join(workDirectory, 'out'));
    expect(files).toHaveLength(1);
    expect(files[0]).toBe('parley-a-blue-square-1.png');
    expect(run.stdout).toContain(`saved ${join(workDirectory, 'out', files[0] ?? '')}`);
  });

  it('says at start, in one short line naming the host, that the gateway refuses the key', async () => {
    const run = await runParley('hello\n', { GATEWAY_API_KEY: 'wrong-key-0123456789' });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `parley cannot start: GATEWAY_BASE_URL ${fake.baseUrl}: ${new URL(fake.baseUrl).host} refused GATEWAY_API_KEY (401). Copy the key again from the gateway console.\n`,
    );
    expect(modelChatRequests(fake.requests)).toEqual([]);
  });

  it('refuses to start with a clear list of every wrong variable, exit code 1', async () => {
    const run = await runParley('', { GATEWAY_BASE_URL: '', GATEWAY_API_KEY: '', LOG_LEVEL: 'chatty' });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('parley cannot start, the configuration has problems:');
    expect(run.stderr).toMatch(/GATEWAY_BASE_URL: is required/);
    expect(run.stderr).toMatch(/GATEWAY_API_KEY: is required/);
    expect(run.stderr).toMatch(/LOG_LEVEL: must be one of/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
