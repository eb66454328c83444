import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBotProcess } from '../../test/support/bot-process.ts';
import type { Scenario } from '../scenario.ts';
import { quote } from '../turn-judgement.ts';

/**
 * A wrong setting that carries a secret: the operator is told which variable and what is wrong, and
 * the secret is not written anywhere (stderr included).
 */
export const configScenarios: Scenario[] = [
  {
    id: 'process-config-secret-in-url',
    area: 'process',
    fault: 'GATEWAY_BASE_URL=ftp://user:<the API key>@gateway (a key in a URL of the wrong scheme)',
    expected: 'exit 1 naming GATEWAY_BASE_URL and the problem; the key is not on stderr or stdout',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const key = `sk-faults-${randomBytes(16).toString('hex')}`;
      const folder = mkdtempSync(join(tmpdir(), 'parley-faults-config-'));
      context.defer(() => rmSync(folder, { recursive: true, force: true }));
      const bot = startBotProcess({
        workingDirectory: folder,
        environment: { GATEWAY_BASE_URL: `ftp://user:${key}@gateway`, GATEWAY_API_KEY: key },
      });
      const { code } = await bot.exited;
      const output = bot.output();
      const pieceOfKey = key.slice(10, 22);
      return {
        checks: [
          { name: 'it exits with code 1', isMet: code === 1 },
          { name: 'it names the variable', isMet: output.includes('GATEWAY_BASE_URL') },
          { name: 'it says what is wrong', isMet: output.includes('must start with http:// or https://') },
          { name: 'the key is not written', isMet: !output.includes(pieceOfKey) },
          { name: "the URL's userinfo is not written", isMet: !output.includes('user:') },
        ],
        observed: `exit ${code}: "${quote({ text: output.split('\n').find((line) => line.includes('GATEWAY_BASE_URL')) ?? output, maxLength: 110 })}" · key written: ${output.includes(pieceOfKey) ? 'yes' : 'no'}`,
        turns: [],
        duplicateReplies: 0,
      };
    },
  },
];
