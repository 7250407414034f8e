import { defineConfig } from 'vitest/config';

/** `pnpm soak`: only the soak run, never part of `pnpm test`. */
export default defineConfig({
  test: {
    include: ['soak/**/*.soak.ts'],
    testTimeout: 0,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
