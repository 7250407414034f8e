import { defineConfig } from 'vitest/config';

/**
 * The integration tests in two lanes (projects), each one file at a time; `pnpm test` runs the two
 * side by side (lanes.mjs): most of their time is spent waiting on real servers and timers, not on
 * the CPU, and two lanes on two cores keep `pnpm test` within its budget. Lane "stores" holds the
 * tests of the newer stores, the docs and the nemesis runs; lane "core" holds
 * every other file (a new file lands there unless it is listed here). The real-time bounds of the
 * tests are wide enough for a second lane beside them.
 */
const STORES_LANE = [
  'verify.test.ts',
  'stores-mysql.test.ts',
  'stores-nats.test.ts',
  'nats-tls.test.ts',
  'stores-pgbouncer.test.ts',
  'stores-postgres.test.ts',
  'stores-etcd.test.ts',
  'store-connections.test.ts',
  'demo.test.ts',
  'cli.test.ts',
  'cli-flags.test.ts',
  'docs-snippets.test.ts',
  'docs-identifiers.test.ts',
  'vocabulary.test.ts',
  'dashboard-browser.test.ts',
  'daemon-client.test.ts',
  'smoke.test.ts',
  'secrets.test.ts',
  'observability.test.ts',
  'tls-acl.test.ts',
  'cli-primary.test.ts',
];

/**
 * Run alone, after both lanes, one file at a time with nothing beside it: the packed install (it
 * packs every package with `npm pack`, whose `prepack` rebuilds the package's dist/, which the other
 * tests run from, the `roster` bin among them), and the tests whose real-time bounds failed with a
 * second lane beside them (a fresh-clone CI run: a takeover later than T + 2I under garbage, a slow
 * and lossy network, the TLS Sentinel deployment's start).
 */
const ALONE = ['consumer.test.ts', 'contract-faults.test.ts', 'network-redis.test.ts', 'stores-sentinel-tls.test.ts'];

/**
 * Real servers, real processes and the real clock: a test that fails once is run again, and
 * `.ci/run` names every test that needed it (a flake is reported, not hidden).
 */
const shared = { testTimeout: 120_000, hookTimeout: 120_000, fileParallelism: false, retry: 1 } as const;

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'core', include: ['**/*.test.ts'], exclude: ['**/node_modules/**', ...STORES_LANE, ...ALONE] } },
      { test: { ...shared, name: 'stores', include: STORES_LANE } },
      { test: { ...shared, name: 'alone', include: ALONE } },
    ],
  },
});
