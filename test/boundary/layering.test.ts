import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Enforces the dependency rule of ARCHITECTURE.md by reading every import: src/ imports neither adapters/
 * nor commands/ (except the process entry, which picks the adapters); commands/ imports no adapter;
 * an adapter imports no other adapter. Only src/config.ts reads process.env.
 */
const root = resolve(import.meta.dirname, '../..');
const compositionRoot = 'src/main.ts';

function sourceFiles(directory: string): string[] {
  const absolute = join(root, directory);
  let entries: string[];
  try {
    entries = readdirSync(absolute);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? '',
  );
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(root, resolve(root, dirname(file), specifier)));
}

function layerOf(path: string): string {
  const [top, second] = path.split('/');
  return top === 'adapters' ? `adapters/${second}` : (top ?? '');
}

const files = ['src', 'commands', 'adapters'].flatMap(sourceFiles);

describe('layering', () => {
  it('finds the source tree', () => {
    expect(files).toContain('src/config.ts');
    expect(files.some((file) => file.startsWith('adapters/console/'))).toBe(true);
  });

  it('keeps every import on the allowed side of the rule', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        const isForbidden =
          (from === 'src' && file !== compositionRoot && (to.startsWith('adapters') || to === 'commands')) ||
          (from === 'commands' && to.startsWith('adapters')) ||
          (from.startsWith('adapters/') && to.startsWith('adapters/') && to !== from);
        if (isForbidden) violations.push(`${file} imports ${target}`);
      }
    }
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
