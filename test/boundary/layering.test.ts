import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, root, sourceFiles } from './source-imports.ts';

/**
 * Enforces the dependency rule of ARCHITECTURE.md by reading every import: src/ imports neither adapters/
 * nor commands/ (the process entry, which picks the adapters, lives above them all in bin/);
 * commands/ imports no adapter; an adapter imports no other adapter. Only src/config.ts reads process.env.
 */
function layerOf(path: string): string {
  const [top, second] = path.split('/');
  return top === 'adapters' ? `adapters/${second}` : (top ?? '');
}

const files = ['bin', 'src', 'commands', 'adapters'].flatMap(sourceFiles);

describe('layering', () => {
  it('finds the source tree', () => {
    expect(files).toContain('src/config.ts');
    expect(files).toContain('bin/parley.ts');
    expect(files.some((file) => file.startsWith('adapters/console/'))).toBe(true);
  });

  it('keeps every import on the allowed side of the rule', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        const isForbidden =
          (from === 'src' && (to.startsWith('adapters') || to === 'commands' || to === 'bin')) ||
          (from === 'commands' && (to.startsWith('adapters') || to === 'bin')) ||
          (from.startsWith('adapters/') && ((to.startsWith('adapters/') && to !== from) || to === 'bin'));
        if (isForbidden) violations.push(`${file} imports ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps src/images below the conversation: it imports only the leaves of the core', () => {
    const leaves = [
      'src/images/',
      'src/net/',
      'src/state/',
      'src/log',
      'src/format-size.ts',
      'src/user-facing-error.ts',
    ];
    const violations = files
      .filter((file) => file.startsWith('src/images/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => !leaves.some((leaf) => target.startsWith(leaf)))
          .map((target) => `${file} imports ${target}`),
      );
    expect(violations).toEqual([]);
  });

  it('keeps the platform libraries inside their adapters', () => {
    const platformLibraries: Record<string, RegExp> = {
      'adapters/discord': /^(discord\.js|@discordjs\/)/,
      'adapters/slack': /^@slack\//,
    };
    const violations: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      const packages = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'".][^'"]*)['"]/g)].map(
        (match) => match[1] ?? '',
      );
      for (const [home, pattern] of Object.entries(platformLibraries)) {
        for (const name of packages.filter((specifier) => pattern.test(specifier))) {
          if (!file.startsWith(`${home}/`)) violations.push(`${file} imports ${name}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('reads process.env only in src/config.ts', () => {
    const readers = files.filter(
      (file) => file !== 'src/config.ts' && readFileSync(join(root, file), 'utf8').includes('process.env'),
    );
    expect(readers).toEqual([]);
  });
});
