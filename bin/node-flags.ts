/**
 * The flags parley's node process starts with: `npm start` (package.json's start script), the
 * Docker image (Dockerfile's CMD) and the benches all pass these, and test/docs checks that they
 * agree.
 *
 * `--max-semi-space-size`: V8 grows its young generation up to 2 × 32 MiB while parley starts (it
 * allocates a lot, briefly, loading modules) and never gives those pages back: at idle 36–41 MiB of
 * it stayed resident holding 2 MiB of live objects (`npm run bench:memory -- --modules`, issue 24).
 * At 8 MiB the young generation stays small at idle; under load it collects more often, which the
 * N=200 bench measured (docs/benchmarks.md, "Issue 24").
 */
export const parleyNodeFlags: readonly string[] = ['--max-semi-space-size=8'];
