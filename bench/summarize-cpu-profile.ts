import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * Prints where a `--cpu-prof` profile spent its time: self time by package or folder, then the
 * functions with the most self and inclusive time, optionally for one phase only (`--from`/`--to`,
 * found with `--timeline`). `npm run bench -- --profile` writes the profiles; this reads one:
 * `scripts/node22.sh node bench/summarize-cpu-profile.ts bench/profiles/bot-200.cpuprofile`.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const repositoryRoot = resolve(import.meta.dirname, '..');

function placeOf(url: string): string {
  if (url === '') return '(native / idle / gc)';
  if (url.startsWith('node:')) return 'node: built-ins';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const nodeModules = path.lastIndexOf('node_modules/');
  if (nodeModules !== -1) {
    const parts = path.slice(nodeModules + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
  }
  const inRepository = relative(repositoryRoot, path);
  return inRepository.startsWith('..') ? path : inRepository.split('/').slice(0, 2).join('/');
}

function labelOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const path = url.startsWith('file://') ? relative(repositoryRoot, new URL(url).pathname) : url;
  return `${functionName || '(anonymous)'} ${path}:${lineNumber + 1}`;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    // Seconds from the start of the profile, e.g. `--from 3.5 --to 4.2`: one phase of the load alone.
    from: { type: 'string' },
    to: { type: 'string' },
    // Busy milliseconds per 100 ms, to find the phase worth a closer look.
    timeline: { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
  },
});
const path = positionals[0];
if (path === undefined) {
  process.stderr.write(
    'usage: node bench/summarize-cpu-profile.ts <file.cpuprofile> [--timeline] [--from s] [--to s] [--top 25]\n',
  );
  process.exit(2);
}
const topCount = Number(values.top);
const fromMicroseconds = values.from === undefined ? 0 : Number(values.from) * 1e6;
const toMicroseconds = values.to === undefined ? Number.POSITIVE_INFINITY : Number(values.to) * 1e6;
const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
const nodesById = new Map(profile.nodes.map((node) => [node.id, node]));
const parentById = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentById.set(child, node.id);

const selfByPlace = new Map<string, number>();
/**
 * Each sample given to the innermost frame of the repository's own code on its stack (the bot's, or
 * the floor's), else to the package of the function running: what each of our functions costs with
 * the libraries it calls, and what runs with none of ours above it (a library's stream, GC). The
 * fourth pass of issue 24 found the `openai` SDK's stream this way, where self time was spread thin.
 */
const byOwnCaller = new Map<string, number>();
const isOwnCode = (url: string) => url.startsWith('file://') && !url.includes('/node_modules/');
const selfByFunction = new Map<string, number>();
const inclusiveByFunction = new Map<string, number>();
let totalMicroseconds = 0;
let idleMicroseconds = 0;
const add = (map: Map<string, number>, key: string, value: number) =>
  map.set(key, (map.get(key) ?? 0) + value);

const busyByTimelineBucket = new Map<number, number>();
const timelineBucketMicroseconds = 100_000;
let elapsedMicroseconds = 0;
for (const [index, nodeId] of profile.samples.entries()) {
  elapsedMicroseconds += profile.timeDeltas[index] ?? 0;
  const duration = profile.timeDeltas[index + 1] ?? 0;
  const node = nodesById.get(nodeId);
  if (node === undefined || elapsedMicroseconds < fromMicroseconds || elapsedMicroseconds > toMicroseconds)
    continue;
  totalMicroseconds += duration;
  if (node.callFrame.functionName === '(idle)') {
    idleMicroseconds += duration;
    continue;
  }
  const bucket = Math.floor(elapsedMicroseconds / timelineBucketMicroseconds);
  busyByTimelineBucket.set(bucket, (busyByTimelineBucket.get(bucket) ?? 0) + duration);
  add(selfByPlace, placeOf(node.callFrame.url), duration);
  add(selfByFunction, labelOf(node), duration);
  // Each function counts once per sample, however deep its recursion.
  const seen = new Set<string>();
  let ownCaller: string | undefined;
  for (let current: number | undefined = nodeId; current !== undefined; current = parentById.get(current)) {
    const frame = nodesById.get(current);
    if (frame === undefined) break;
    const label = labelOf(frame);
    if (!seen.has(label)) add(inclusiveByFunction, label, duration);
    seen.add(label);
    if (ownCaller === undefined && isOwnCode(frame.callFrame.url)) ownCaller = label;
  }
  add(byOwnCaller, ownCaller ?? `(none of ours) ${placeOf(node.callFrame.url)}`, duration);
}

const busyMicroseconds = totalMicroseconds - idleMicroseconds;
const share = (value: number) => `${((value / busyMicroseconds) * 100).toFixed(1).padStart(5)}%`;
const milliseconds = (value: number) => `${(value / 1000).toFixed(0).padStart(7)} ms`;
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, value] of [...map].sort((left, right) => right[1] - left[1]).slice(0, topCount)) {
    process.stdout.write(`  ${milliseconds(value)} ${share(value)}  ${key}\n`);
  }
};
process.stdout.write(
  `${path}: ${(totalMicroseconds / 1e6).toFixed(1)} s profiled, ${(busyMicroseconds / 1e6).toFixed(2)} s busy (shares below are of busy time)\n`,
);
if (values.timeline) {
  process.stdout.write('\nbusy ms per 100 ms (from the start of the profile)\n');
  for (const [bucket, busy] of [...busyByTimelineBucket].sort((left, right) => left[0] - right[0])) {
    const seconds = (bucket * timelineBucketMicroseconds) / 1e6;
    process.stdout.write(
      `  ${seconds.toFixed(1).padStart(6)} s ${(busy / 1000).toFixed(0).padStart(4)} ${'#'.repeat(Math.round(busy / 2000))}\n`,
    );
  }
}
print('self time by package / folder', selfByPlace);
print('self time by function', selfByFunction);
print('inclusive time by function', inclusiveByFunction);
print('time by the innermost function of our own code on the stack', byOwnCaller);
