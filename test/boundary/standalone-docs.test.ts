import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/parley-process.ts';

/** A clone has only the repository: nothing in it may send a reader to a folder beside it. */
const skippedFolders = new Set(['node_modules', '.git', 'data', 'out']);

function textFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return skippedFolders.has(entry) ? [] : textFiles(path);
    return /\.(md|ts|json|ya?ml|sh)$|^(Dockerfile|LICENSE|\.env\.example)$/.test(entry) ? [path] : [];
  });
}

describe('the repository stands alone', () => {
  it('refers to no file outside it (../shared/design.md and the like)', () => {
    const offenders = textFiles(repositoryRoot)
      .filter((path) => path !== import.meta.filename)
      .filter((path) => /\.\.\/shared\/|shared\/design\.md/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(repositoryRoot, path));
    expect(offenders).toEqual([]);
  });
});
