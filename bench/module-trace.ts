import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * Loaded with `--import` into a child by `npm run bench:memory -- --modules`: records every module
 * the process loads, and on SIGUSR2 writes how many modules of each package (or of parley's own
 * folders) it has loaded, with its memory then, to MODULE_TRACE_OUT.
 */

const loadedUrls: string[] = [];
registerHooks({
  load(url, context, nextLoad) {
    loadedUrls.push(url);
    return nextLoad(url, context);
  },
});

process.on('SIGUSR2', () => {
  const countByOwner = new Map<string, number>();
  for (const url of loadedUrls) countByOwner.set(ownerOf(url), (countByOwner.get(ownerOf(url)) ?? 0) + 1);
  const memory = process.memoryUsage();
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const lines = [...countByOwner]
    .sort((left, right) => right[1] - left[1])
    .map(([owner, count]) => `${String(count).padStart(5)}  ${owner}`);
  lines.push(
    `rss ${mib(memory.rss)} MiB, heap used ${mib(memory.heapUsed)} of ${mib(memory.heapTotal)}, external ${mib(memory.external)}, array buffers ${mib(memory.arrayBuffers)}`,
  );
  for (const space of getHeapSpaceStatistics()) {
    lines.push(
      `  ${space.space_name}: ${mib(space.space_used_size)} used of ${mib(space.space_size)} (${mib(space.physical_space_size)} resident)`,
    );
  }
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect !== undefined) {
    collect();
    const after = process.memoryUsage();
    lines.push(
      `after a full collection: rss ${mib(after.rss)} MiB, heap used ${mib(after.heapUsed)} of ${mib(after.heapTotal)}`,
    );
  }
  writeFileSync(process.env.MODULE_TRACE_OUT ?? 'modules.txt', `${lines.join('\n')}\n`);
});

function ownerOf(url: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  if (url.startsWith('node:')) return 'node: built-ins';
  const ownFolder = /\/(src|adapters|commands|bin)\/([^/]+)/.exec(url);
  return ownFolder === null ? url : `parley ${ownFolder[1]}/${ownFolder[2]}`;
}
