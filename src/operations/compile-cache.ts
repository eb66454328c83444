import * as nodeModule from 'node:module';

/**
 * Writes what node has compiled so far (each module with its types stripped, as V8 code) to its
 * compile cache, when one is on (NODE_COMPILE_CACHE: scripts/start.sh and the image set it), so the
 * next start reads it rather than compiling again: about half of start-up's module loading
 * (docs/benchmarks.md, cold start). Node writes it only at a clean exit otherwise, and a bot usually
 * ends by a signal or a kill; called once start-up has loaded what a running bot needs. Without a
 * cache (or on a node without the call) it does nothing; a cache that cannot be written is no error.
 */
export function keepCompiledModules(): void {
  try {
    nodeModule.flushCompileCache?.();
  } catch {
    // The cache is an optimisation: start-up is only slower without it.
  }
}
