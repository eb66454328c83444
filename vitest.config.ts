import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests run real servers on loopback; a generous timeout keeps a slow CI machine green
    // without hiding hangs.
    testTimeout: 15_000,
    hookTimeout: 15_000,
  },
});
