import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers, real processes and the real clock: a test that fails once is run again, and
    // `.ci/run` names every test that needed it (a flake is reported, not hidden).
    retry: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
