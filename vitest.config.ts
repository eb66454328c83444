import { defineConfig } from 'vitest/config';
import { createSkipReasonsReporter } from './test/support/skip-reasons-reporter.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The default report, then why tests were skipped and which variable turns them on.
    reporters: ['default', createSkipReasonsReporter()],
    // Integration tests run real servers on loopback; a generous timeout keeps a slow CI machine green
    // without hiding hangs.
    testTimeout: 15_000,
    hookTimeout: 15_000,
  },
});
