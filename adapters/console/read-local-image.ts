import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { ImageAttachment } from '../../src/conversation/turn.ts';
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
}: {
  path: string;
  homeDirectory: string;
}): Promise<{ attachment: ImageAttachment } | { problem: string }> {
  const fullPath = resolve(path === '~' || path.startsWith('~/') ? join(homeDirectory, path.slice(1)) : path);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(fullPath));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    return { problem: readProblems[code]?.(fullPath) ?? `${fullPath} cannot be read (${code || 'error'}).` };
  }
  if (detectImageType(bytes) === undefined) {
    return { problem: `${fullPath} is not an image I can read (PNG, JPEG, GIF or WebP).` };
  }
  return { attachment: { name: basename(fullPath), load: async () => bytes } };
}
