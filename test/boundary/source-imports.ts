import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The project folder, which the boundary tests read. */
export const root = resolve(import.meta.dirname, '../..');

/** Every TypeScript file under `directory` (relative to the project), deepest folders included. */
export function sourceFiles(directory: string): string[] {
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

/**
 * The project files a file imports, type-only imports and re-exports included (`from '…'`,
 * `import('…')`, `import '…'`), as paths relative to the project.
 */
export function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? '',
  );
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(root, resolve(root, dirname(file), specifier)));
}
