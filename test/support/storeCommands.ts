/**
 * The `roster primary` and `cluster-test` checks the store tests (`test/stores-*.test.ts`) run on
 * each store that has a clock of its own: one contender acting as primary on the store's clock,
 * and two `cluster-test` instances sharing their threads.
 */
import type { PrimaryEvent } from '@roster/cli';
import { expect } from 'vitest';
import { startClusterTest } from './clusterTest.js';
import { runRoster, startRoster, until } from './rosterNode.js';

/** Options of {@link primaryActsOnStoreClock}. */
export interface PrimaryCheckOptions {
  /** The `--store` URL. */
  readonly url: string;
  /** The `--group`. */
  readonly group: string;
  /** The contender's `--interval`, in ms. */
  readonly intervalMs: number;
  /** How long the wait for `acting` may take, and how far the claim may be from the store's clock. */
  readonly waitMs: number;
  /** The store's clock now, in ms since the epoch. */
  readonly storeNow: () => Promise<number>;
}

/**
 * A contender (`roster primary run`, `--timeout 1200`) acts as primary with the store's clock (its
 * `claimedAt` within `waitMs` of {@link PrimaryCheckOptions.storeNow}), `primary get` reads it,
 * and the contender exits 0 on SIGTERM. Kill what is left with `killAllNodes` afterwards.
 */
export async function primaryActsOnStoreClock({ url, group, intervalMs, waitMs, storeNow }: PrimaryCheckOptions): Promise<void> {
  const p = startRoster('primary', 'run', '--store', url, '--group', group, '--env', 'test', '--type', 'db', '--id', 'p1', '--endpoint', 'p1.local:8080', '--interval', String(intervalMs), '--timeout', '1200', '--json');
  const events = (): PrimaryEvent[] => p.events as unknown as PrimaryEvent[];
  await until(() => events().some((e) => e.event === 'acting'), waitMs, () => p.describe());
  const acting = events().find((e): e is Extract<PrimaryEvent, { event: 'acting' }> => e.event === 'acting')!;
  const now = await storeNow();
  expect(Math.abs(now - acting.claimedAt)).toBeLessThan(waitMs);
  const got = await runRoster(['primary', 'get', '--store', url, '--group', group, '--env', 'test', '--type', 'db', '--timeout', '1200', '--json']);
  expect(got.exit.code, got.stderr).toBe(0);
  expect(JSON.parse(got.stdout)).toMatchObject({ primary: 'p1', endpoint: 'p1.local:8080' });
  p.signal('SIGTERM');
  expect(await p.exited).toEqual({ code: 0, signal: null });
}

/** Options of {@link clusterTestSharesThreads}. */
export interface ClusterTestCheckOptions {
  /** The `-r` store URL. */
  readonly url: string;
  /** The `-k` key. */
  readonly key: string;
  readonly intervalMs: number;
  /** How long each wait may take. */
  readonly waitMs: number;
}

/**
 * Two `cluster-test` instances of 3 and 2 threads share a total of 5, in an order they agree on;
 * when the second leaves (SIGTERM, exit 0), the one left has 0 of 3. Kill what is left with
 * `killAll` of clusterTest.ts afterwards.
 */
export async function clusterTestSharesThreads({ url, key, intervalMs, waitMs }: ClusterTestCheckOptions): Promise<void> {
  const args = (id: string, threads: number): string[] => ['-r', url, '-k', key, '-i', id, '-n', String(threads), '--interval', String(intervalMs)];
  const a = startClusterTest(...args('a', 3));
  const b = startClusterTest(...args('b', 2));
  const balanced = (): boolean => [a.last(), b.last()].every((x) => x?.total === 5);
  await until(balanced, waitMs, () => `${a.stdout}\n${a.stderr}\n${b.stdout}\n${b.stderr}`);
  // The instances split the 5 threads in an order they agree on: a then b, or b then a.
  expect([[0, 3], [2, 0]]).toContainEqual([a.last()!.index, b.last()!.index]);
  b.signal('SIGTERM');
  expect(await b.exited).toBe(0);
  await until(() => a.last()?.total === 3, waitMs, () => a.stdout);
  expect(a.last()).toEqual({ index: 0, threads: 3, total: 3 });
}
