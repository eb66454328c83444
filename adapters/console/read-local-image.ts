import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { DocumentAttachment, ImageAttachment } from '../../src/conversation/turn.ts';
import { detectImageType } from '../../src/images/image-type.ts';

/** Why a local file cannot be sent, in words, by the error code of reading it. */
const readProblems: Readonly<Record<string, (path: string) => string>> = {
  ENOENT: (path) => `There is no file at ${path}.`,
  EISDIR: (path) => `${path} is a folder, not an image.`,
  EACCES: (path) => `${path} cannot be read (permission denied).`,
  EPERM: (path) => `${path} cannot be read (permission denied).`,
  ENOTDIR: (path) => `There is no file at ${path}.`,
};

/**
 * Reads an image file named in the terminal, with `~` meaning the home folder and a relative path
 * starting where the person is. The bytes are read and checked now, so that a missing file or one
 * that is not an image is refused before anything reaches the model or the history.
 */
export async function readLocalImage({
  path,
  homeDirectory,
  workingDirectory,
}: {
  path: string;
  homeDirectory: string;
  /** Where relative paths start: the folder the person typed the start command in. */
  workingDirectory: string;
}): Promise<{ attachment: ImageAttachment } | { problem: string }> {
  const read = await readLocalBytes({ path, homeDirectory, workingDirectory });
  if ('problem' in read) return read;
  const { bytes, fullPath } = read;
  if (detectImageType(bytes) === undefined) {
    return { problem: `${fullPath} is not an image I can read (PNG, JPEG, GIF or WebP).` };
  }
  return { attachment: { name: basename(fullPath), load: async () => bytes } };
}

/**
 * A document named in the terminal (`/file`, `--file`): read now, so a missing file is said at once;
 * what it is and whether it can be read is the document reader's to tell.
 */
export async function readLocalDocument({
  path,
  homeDirectory,
  workingDirectory,
}: {
  path: string;
  homeDirectory: string;
  /** Where relative paths start: the folder the person typed the start command in. */
  workingDirectory: string;
}): Promise<{ attachment: DocumentAttachment } | { problem: string }> {
  const read = await readLocalBytes({ path, homeDirectory, workingDirectory });
  if ('problem' in read) return read;
  return { attachment: { name: basename(read.fullPath), load: async () => read.bytes } };
}

// `~` is the home folder; a relative path starts where the person is.
async function readLocalBytes({
  path,
  homeDirectory,
  workingDirectory,
}: {
  path: string;
  homeDirectory: string;
  /** Where relative paths start: the folder the person typed the start command in. */
  workingDirectory: string;
}): Promise<{ bytes: Uint8Array; fullPath: string } | { problem: string }> {
  const fullPath = resolve(
    workingDirectory,
    path === '~' || path.startsWith('~/') ? join(homeDirectory, path.slice(1)) : path,
  );
  try {
    return { bytes: new Uint8Array(await readFile(fullPath)), fullPath };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    return { problem: readProblems[code]?.(fullPath) ?? `${fullPath} cannot be read (${code || 'error'}).` };
  }
}
