import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScenarioSkipped } from './scenario.ts';

/**
 * A small file system of its own (tmpfs of a fixed size), so a disk can really fill up or really be
 * read-only: nothing in the bot is told, it meets ENOSPC and EROFS where it would in production.
 * Needs root (or CAP_SYS_ADMIN); elsewhere the scenario is skipped, saying so.
 */
export interface ScratchFileSystem {
  readonly path: string;
  /** Writes a filler file until the file system is full; returns the bytes it took. */
  fill(): number;
  /** Removes the filler file. */
  free(): void;
  /** Remounts it read-only (nothing may have a file open for writing on it). */
  makeReadOnly(): void;
  unmount(): void;
}

export function mountScratchFileSystem({ sizeBytes }: { sizeBytes: number }): ScratchFileSystem {
  const path = mkdtempSync(join(tmpdir(), 'parley-faults-fs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0755`, 'tmpfs', path], {
      stdio: 'pipe',
    });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const reason = (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
    throw new ScenarioSkipped(
      `cannot mount a size-limited tmpfs here (${reason.split('\n')[0]}); run as root`,
    );
  }
  const fillerPath = join(path, 'filler');
  return {
    path,
    fill() {
      const descriptor = openSync(fillerPath, 'a');
      const block = Buffer.alloc(64 * 1024, 0x5a);
      let written = 0;
      try {
        for (;;) written += writeSync(descriptor, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(descriptor);
      }
      // The last partial block: fill every byte that is left.
      const tail = openSync(fillerPath, 'a');
      try {
        for (;;) written += writeSync(tail, Buffer.alloc(512, 0x5a));
      } catch {
        // ENOSPC: the file system is full.
      } finally {
        closeSync(tail);
      }
      return written;
    },
    free() {
      rmSync(fillerPath, { force: true });
    },
    makeReadOnly() {
      execFileSync('mount', ['-o', 'remount,ro', path], { stdio: 'pipe' });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', path], { stdio: 'pipe' });
      } finally {
        rmSync(path, { recursive: true, force: true });
      }
    },
  };
}
