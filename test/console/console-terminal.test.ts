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
// A whole process starts in each test; on a busy machine that alone can take many seconds.
const startTimeoutMs = 30_000;
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
  { timeout: 60_000 },
  () => {
    it('shows what the person types after the prompt, then the streamed answer', async () => {
      fake.enqueue({ text: 'Whiskers is a fine name.', chunkSize: 4, delayBetweenChunksMs: 20 });
      const parley = startInTerminal();
      try {
        await parley.waitForOutput('parley — chat, or type /help for commands', {
          timeoutMs: startTimeoutMs,
        });
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

    it('renders the reply as Markdown: bold is bold, a list has bullets, no ** or backticks are left', async () => {
      fake.enqueue({ text: 'This is **bold** and `code`:\n\n- first _item_\n- second', chunkSize: 5 });
      const parley = startInTerminal();
      try {
        await parley.waitForOutput(/\n> $/, { timeoutMs: startTimeoutMs });
        parley.write('show me some markdown\r');
        await parley.waitForOutput(/second[\s\S]*\n> $/);
        parley.write('/exit\r');
        expect(await parley.exited).toBe(0);
        const answer = withoutControlSequences(parley.stdout()).split('show me some markdown')[1] ?? '';
        expect(answer).toContain('This is bold and code:');
        expect(answer).toMatch(/\* first item\n\s*\* second/);
        expect(answer).not.toMatch(/\*\*|`|_item_/);
        // Bold in the terminal's own terms (SGR 1).
        expect(parley.stdout()).toContain('\x1b[1mbold\x1b[22m');
      } finally {
        await parley.stop();
      }
    });

    it('makes a paste of several lines one message, sent with Enter, and gives the terminal back', async () => {
      const parley = startInTerminal();
      try {
        await parley.waitForOutput(/\n> $/, { timeoutMs: startTimeoutMs });
        const chatRequestsBefore = chatRequests().length;
        // What a terminal sends for a paste once parley turned bracketed paste on; readline alone
        // would answer each line.
        parley.write('\x1b[200~first pasted line\rsecond pasted line\rthird\x1b[201~');
        await parley.waitForOutput('… third');
        parley.write(' and typed\r');
        await parley.waitForOutput(/This reply comes from the[\s\S]*\n> $/);
        parley.write('/exit\r');
        expect(await parley.exited).toBe(0);
        const sent = chatRequests().slice(chatRequestsBefore);
        expect(sent).toHaveLength(1);
        expect(lastUserText(sent[0])).toBe('first pasted line\nsecond pasted line\nthird and typed');
        expect(parley.stdout()).toContain('\x1b[?2004h');
        expect(parley.stdout().lastIndexOf('\x1b[?2004l')).toBeGreaterThan(
          parley.stdout().lastIndexOf('\x1b[?2004h'),
        );
      } finally {
        await parley.stop();
      }
    });

    it('goes on to the next line after a trailing backslash, and /help says so', async () => {
      const parley = startInTerminal();
      try {
        await parley.waitForOutput(/\n> $/, { timeoutMs: startTimeoutMs });
        const chatRequestsBefore = chatRequests().length;
        parley.write('Dear team, \\\r');
        await parley.waitForOutput('\n… ');
        parley.write('the build is green.\r');
        await parley.waitForOutput(/This reply comes from the[\s\S]*\n> $/);
        parley.write('/help\r');
        await parley.waitForOutput(/Default model:[\s\S]*\n> $/);
        parley.write('/exit\r');
        expect(await parley.exited).toBe(0);
        const sent = chatRequests().slice(chatRequestsBefore);
        expect(sent.map(lastUserText)).toEqual(['Dear team, \nthe build is green.']);
        const help = withoutControlSequences(parley.stdout()).split('> /help\n')[1] ?? '';
        expect(help).toContain('end a line with \\ and go on in the next');
        expect(help).not.toMatch(/mention me|DM me/i);
      } finally {
        await parley.stop();
      }
    });
  },
);

function chatRequests() {
  return fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
}

// The text of the last user message as the gateway received it (the fake's own request shape).
function lastUserText(request: { body: unknown } | undefined): string {
  const messages = (request?.body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
  const content = messages.findLast((message) => message.role === 'user')?.content;
  if (typeof content === 'string') return content.replace(/^\S+: /, '');
  return '';
}
