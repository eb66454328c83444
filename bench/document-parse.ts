import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { parseInWorker } from '../src/documents/parse-in-worker.ts';
import {
  createDocx,
  createDocxBomb,
  createManyPagePdf,
  createScannedPdf,
  createTextPdf,
  createXlsx,
} from '../test/support/sample-documents.ts';

/**
 * `npm run bench:documents`: how long each kind of file takes to parse on the worker, the worker's
 * peak heap, and the longest stall of the main event loop meanwhile (which should stay near zero:
 * parsing never runs on it). Limits are the defaults of .env.example.
 */
const limits = {
  maxUnits: 100,
  maxCharacters: 400_000,
  maxRenderedPages: 5,
  maxUnpackedBytes: 100 * 1024 * 1024,
};
const workerLimits = { timeoutMs: 60_000, maxHeapMb: 256 };
const repeats = 3;

async function samples(): Promise<Array<{ label: string; name: string; bytes: Uint8Array }>> {
  const page = Array.from(
    { length: 40 },
    (_, line) => `Line ${line + 1}: quarterly revenue rose in every region.`,
  );
  const rows = Array.from({ length: 1_000 }, (_, row) => [`item ${row}`, row, row * 3.5, 'north']);
  return [
    {
      label: '100-page PDF, 40 lines a page',
      name: 'report.pdf',
      bytes: await createTextPdf(Array.from({ length: 100 }, () => page)),
    },
    {
      label: '10,000-page PDF (first 100 read)',
      name: 'huge.pdf',
      bytes: createManyPagePdf({ pageCount: 10_000 }),
    },
    { label: 'scanned PDF, 1 page rendered', name: 'scan.pdf', bytes: await createScannedPdf() },
    {
      label: 'DOCX, 2,000 paragraphs',
      name: 'memo.docx',
      bytes: createDocx(Array.from({ length: 2_000 }, (_, index) => `Paragraph ${index} of the memo.`)),
    },
    { label: 'XLSX, 1,000 rows × 4', name: 'sales.xlsx', bytes: await createXlsx({ Sales: rows }) },
    {
      label: 'DOCX zip bomb, 200 MB unpacked (refused)',
      name: 'bomb.docx',
      bytes: createDocxBomb({ unpackedBytes: 200 * 1024 * 1024 }),
    },
  ];
}

async function measure(sample: { name: string; bytes: Uint8Array }) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let peakHeapBytes = 0;
  let poll: NodeJS.Timeout | undefined;
  const sampleHeap = (worker: Worker) => {
    poll = setInterval(() => {
      worker.getHeapStatistics().then(
        (stats) => {
          peakHeapBytes = Math.max(peakHeapBytes, stats.used_heap_size);
        },
        () => undefined,
      );
    }, 10);
  };
  delay.enable();
  const startedAt = performance.now();
  const outcome = await parseInWorker({
    request: { bytes: sample.bytes, name: sample.name, limits },
    limits: workerLimits,
    onStarted: sampleHeap,
  });
  const parseMs = performance.now() - startedAt;
  clearInterval(poll);
  delay.disable();
  return {
    parseMs,
    peakHeapMb: peakHeapBytes / 1024 / 1024,
    maxLoopDelayMs: delay.max / 1e6,
    outcome: outcome.isRead ? 'read' : outcome.reason,
  };
}

const rows: string[] = [
  '| file | bytes | outcome | parse (median of 3) | worker peak heap | main loop max delay |',
  '|---|---|---|---|---|---|',
];
for (const sample of await samples()) {
  const runs = [];
  for (let run = 0; run < repeats; run += 1) runs.push(await measure(sample));
  runs.sort((left, right) => left.parseMs - right.parseMs);
  const median = runs[Math.floor(runs.length / 2)] ?? runs[0];
  if (!median) continue;
  rows.push(
    `| ${sample.label} | ${(sample.bytes.length / 1024).toFixed(0)} KB | ${median.outcome} | ${median.parseMs.toFixed(0)} ms | ${median.peakHeapMb.toFixed(0)} MB | ${Math.max(...runs.map((run) => run.maxLoopDelayMs)).toFixed(1)} ms |`,
  );
}
process.stdout.write(`${rows.join('\n')}\n`);
