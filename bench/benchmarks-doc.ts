import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const startMarker = '<!-- bench:results:start (written by `npm run bench`; edit outside the markers) -->';
const endMarker = '<!-- bench:results:end -->';

/**
 * Replaces the generated section of docs/benchmarks.md, between its markers, keeping everything a
 * person wrote around it. A missing file (or one without markers) gets the section appended.
 */
export function updateBenchmarksDoc({ path, generated }: { path: string; generated: string }): void {
  const section = `${startMarker}\n${generated.trim()}\n${endMarker}`;
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const startIndex = existing.indexOf(startMarker);
  const endIndex = existing.indexOf(endMarker);
  const updated =
    startIndex === -1 || endIndex < startIndex
      ? `${existing.trimEnd()}\n\n${section}\n`
      : `${existing.slice(0, startIndex)}${section}${existing.slice(endIndex + endMarker.length)}`;
  writeFileSync(path, updated);
}
