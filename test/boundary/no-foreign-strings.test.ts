import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionVerbs } from '../../commands/action-store.ts';
import { allActions } from '../../commands/all-actions.ts';
import { allCommands } from '../../commands/all-commands.ts';

/**
 * Policy lives in the core: an adapter asks a command's or an action's declaration what to do; it
 * never compares another layer's strings (`name === 'help'`, `customId.includes(':chat.stop:')`).
 */
const root = resolve(import.meta.dirname, '../..');

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('adapters and the strings of other layers', () => {
  it('no adapter names an action verb or compares a command name', () => {
    const violations: string[] = [];
    for (const file of sourceFiles('adapters')) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const verb of actionVerbs) {
        if (text.includes(`'${verb}'`) || text.includes(`:${verb}:`))
          violations.push(`${file} names ${verb}`);
      }
      for (const command of allCommands) {
        if (new RegExp(`name\\s*[=!]==\\s*'${command.name}'`).test(text)) {
          violations.push(`${file} compares with the command name '${command.name}'`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('every button verb is declared by exactly one action', () => {
    expect(allActions.map((action) => action.verb).sort()).toEqual([...actionVerbs].sort());
  });
});
