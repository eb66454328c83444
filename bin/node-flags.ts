/**
 * The flags parley's node process starts with: `npm start` (package.json's start script), the
 * Docker image (Dockerfile's CMD) and the benches all pass these, and test/boundary/node-flags.test.ts
 * checks that they agree.
 *
 * `--expose-gc`: lets the process give memory back once it is idle (src/operations/idle-memory-trim.ts).
 * V8 keeps its own young-generation sizing: capping it (`--max-semi-space-size=8`, issue 24's second
 * session) kept idle memory lower but cost 15–20 % more CPU per token at 200 replies at once and
 * later first texts at 500 (docs/benchmarks.md, "Issue 24, third session"); the idle trim gets the
 * memory back without that cost.
 */
export const parleyNodeFlags: readonly string[] = ['--expose-gc'];
