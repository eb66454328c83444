import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import {
  hasUtilLinuxScript,
  type ParleyProcess,
  startParley,
  withoutControlSequences,
} from '../support/parley-process.ts';

/**
 * `npm start` in a real terminal: the process runs in a pseudo-terminal (util-linux `script`), so
 * stdin and stdout are TTYs, readline puts the terminal in raw mode, and what the person types shows
 * only if parley echoes it. Piped input cannot show this.
 */
const apiKey = 'terminal-test-key-0123456789';
let fake: FakeGateway;
let workDirectory: string;

beforeAll(async () => {
  fake = await startFakeGateway({ apiKey });
  workDirectory = mkdtempSync(join(tmpdir(), 'parley-terminal-'));
  writeFileSync(
    join(workDirectory, 'models.json'),
    JSON.stringify({ models: { 'chat-model': { vision: false } } }),
  );
});
afterAll(() => fake.close());

function startInTerminal(): ParleyProcess {
  return startParley({
    isTerminal: true,
    environment: {
      GATEWAY_BASE_URL: fake.baseUrl,
      GATEWAY_API_KEY: apiKey,
      CHAT_MODEL: 'chat-model',
      MODEL_CAPABILITIES_FILE: join(workDirectory, 'models.json'),
      STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
      LOG_FILE: join(workDirectory, 'parley.log'),
    },
  });
}

describe.skipIf(!hasUtilLinuxScript)(
  `the terminal chat in a pseudo-terminal${hasUtilLinuxScript ? '' : ' (skipped: needs util-linux script)'}`,
  () => {
    it('shows what the person types after the prompt, then the streamed answer', async () => {
      fake.enqueue({ text: 'Whiskers is a fine name.', chunkSize: 4, delayBetweenChunksMs: 20 });
      const parley = startInTerminal();
      try {
        await parley.waitForOutput('parley — chat, or type /help for commands');
        await parley.waitForOutput(/\n> $/);
        parley.write('what is a good name for a cat?\r');
        await parley.waitForOutput('Whiskers is a fine name.');
        await parley.waitForOutput(/Whiskers is a fine name\.[\s\S]*\n> $/);
        parley.write('/exit\r');
        expect(await parley.exited).toBe(0);
        const screen = withoutControlSequences(parley.stdout());
        // The question stays in the scrollback, after its prompt, before the answer.
        expect(screen).toMatch(/> what is a good name for a cat\?\n+Whiskers is a fine name\./);
        expect(screen).toContain('> /exit');
      } finally {
        await parley.stop();
      }
    });
  },
);
