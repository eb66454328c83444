import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No gateway request without a spend hold, by construction (issue 21). The types already refuse a
 * call without `hold`; this test keeps the two ways around them shut: nothing but the gateway
 * client talks to the model service (so there is no second door), and nothing but the spend guard
 * opens a hold (so a hold always stands on a budget check).
 */
const root = resolve(import.meta.dirname, '../..');

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = ['bin', 'src', 'commands', 'adapters'].flatMap(sourceFiles);
const textOf = (file: string) => readFileSync(join(root, file), 'utf8');

describe('spend holds at the gateway boundary', () => {
  it('only src/gateway/ builds model requests: nothing else imports the openai SDK or makes a client', () => {
    const outside = files.filter((file) => !file.startsWith('src/gateway/'));
    const offenders = outside.filter((file) =>
      /from ['"]openai(\/[^'"]*)?['"]|import\(['"]openai|new OpenAI\(/.test(textOf(file)),
    );
    expect(offenders).toEqual([]);
  });

  it('only the spend guard opens a hold', () => {
    const offenders = files.filter(
      (file) =>
        file !== 'src/spending/spend-guard.ts' &&
        file !== 'src/spending/spend-hold.ts' &&
        /SpendHold\.open\(|new SpendHold\(/.test(textOf(file)),
    );
    expect(offenders).toEqual([]);
    expect(textOf('src/spending/spend-guard.ts')).toContain('SpendHold.open(');
  });

  it('every request the gateway client sends is covered by the hold first', () => {
    for (const file of ['src/gateway/chat-completions.ts', 'src/gateway/image-generation.ts']) {
      const text = textOf(file);
      const sends = [...text.matchAll(/options\.client\.(chat\.completions\.create|post)\(/g)].length;
      const covers = [...text.matchAll(/await coverRequest\(request\.hold,/g)].length;
      expect({ file, sends }).toEqual({ file, sends: covers });
    }
    const structured = textOf('src/gateway/structured-output.ts');
    expect(structured).not.toMatch(/client\.(chat|post)/);
    expect(structured).toContain('hold: request.hold');
  });
});
