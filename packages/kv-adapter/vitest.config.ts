import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // The tests use @roster/testing's doubles and local servers from its source. A package
    // dependency would be a cycle (@roster/testing depends on this package), so there is none: the
    // alias reaches it, and points its imports of this package at this package's own source, so
    // that the tests and the doubles share one copy of every class (one `StoreUnavailableError`).
    alias: [
      { find: /^@roster\/testing$/, replacement: here('../testing/src/index.ts') },
      { find: /^@roster\/kv-adapter$/, replacement: here('src/index.ts') },
      { find: /^@roster\/kv-adapter\/internal$/, replacement: here('src/internal.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers, real processes and the real clock: a test that fails once is run again, and
    // `.ci/run` names every test that needed it (a flake is reported, not hidden).
    retry: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
