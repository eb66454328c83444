import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A file parley will write, and what to tell the person when it cannot. */
export interface WritableFile {
  readonly path: string;
  /** What the file is, e.g. `LOG_FILE` or `the SQLite store of STORE_URL`. */
  readonly what: string;
  /** What to do about it, e.g. `Point LOG_FILE at a writable place.` */
  readonly remedy: string;
}

const causes: Readonly<Record<string, string>> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  ENOSPC: 'no space is left on the device',
  ENOENT: 'that folder cannot hold new files',
};

/**
 * Checks, before anything opens them, that each file's folder exists (creating it) and that the
 * folder and the file are writable; returns one line per file that is not, naming the path and the
 * cause. Writing into a read-only data folder would otherwise fail later as an unhandled error.
 */
export function unwritableFileProblems(files: readonly WritableFile[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    try {
      const folder = dirname(file.path);
      mkdirSync(folder, { recursive: true });
      accessSync(folder, constants.W_OK);
      if (existsSync(file.path)) {
        if (statSync(file.path).isDirectory())
          throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
        accessSync(file.path, constants.W_OK);
      }
      // Opening it is the only sure test: /proc and other special file systems pass the checks above
      // for root, and refuse the file itself. Appending creates nothing but an empty file, which both
      // the log and SQLite take as new.
      closeSync(openSync(file.path, 'a'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      problems.push(
        `${file.what}: cannot write ${file.path}: ${causes[code] ?? (error as Error).message} (${code}). ${file.remedy}`,
      );
    }
  }
  return problems;
}
