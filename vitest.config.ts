import { defineConfig } from 'vitest/config';
import { createSkipReasonsReporter } from './test/support/skip-reasons-reporter.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails a test during which the fake Discord received a request Discord's OpenAPI specification
    // forbids (issue 27, "Proof"); it loads nothing until a test starts a fake.
    setupFiles: ['test/support/specification-violations-setup.ts'],
    // The default report, then why tests were skipped and which variable turns them on.
    reporters: ['default', createSkipReasonsReporter()],
    // Integration tests run real servers on loopback; a generous timeout keeps a slow CI machine green
    // without hiding hangs.
    testTimeout: 15_000,
    hookTimeout: 15_000,
  },
});
