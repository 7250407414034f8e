import { defineConfig } from 'vitest/config';

/** Runs the measurements (`*.measure.ts`), which `pnpm test` leaves out. */
export default defineConfig({
  test: {
    include: ['**/*.measure.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
