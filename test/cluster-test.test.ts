import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAll, startClusterTest } from './support/clusterTest.js';

/** `cluster-test` processes against a real redis-server, checked from what they print. */
const I = 200;
const T = 1000;
const TIMING = ['--interval', String(I), '--timeout', String(T)];
/** Real processes on a busy machine: the virtual-clock bound (T + 4I) plus generous slack. */
const CRASH_BOUND = T + 4 * I + 3000;

let redis: RedisTestServer;
let keyCount = 0;
/** A fresh group per test, so that tests never see each other's instances. */
const freshKey = (): string => `ct${++keyCount}-${Math.random().toString(36).slice(2, 7)}`;

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await killAll();
});
afterAll(async () => {
  await killAll();
  await redis?.stop();
});

describe('cluster-test against a real redis-server', () => {
  it("the seed's example: node1 -n 2, node2, node3 -n 4 print bases 0, 2, 3 of 7; killing node2 re-balances to 0, 2 of 6; Ctrl-C leaves", async () => {
    const k = freshKey();
    const start = (id: string, n: number) => startClusterTest('-k', k, '-i', id, '-n', String(n), '-r', redis.url, ...TIMING);
    const node1 = start('node1', 2);
    await node1.waitForLine('cluster-test: cluster joined; sleeping until terminated', 10 * T);
    const node2 = start('node2', 1);
    const node3 = start('node3', 4);
    const all = [node1, node2, node3];
    await Promise.all(all.map((p) => p.waitFor(() => p.last()?.total === 7, 10 * T, 'total 7')));
    expect(node1.last()).toEqual({ index: 0, threads: 2, total: 7 });
    expect(node2.last()).toEqual({ index: 2, threads: 1, total: 7 });
    expect(node3.last()).toEqual({ index: 3, threads: 4, total: 7 });
    // The transcript's order: the first re-balance, then "cluster joined".
    for (const p of all) expect(p.stdout.indexOf('cluster has re-balanced')).toBeLessThan(p.stdout.indexOf('cluster joined'));

    const killedAt = performance.now();
    node2.signal('SIGKILL');
    await Promise.all([node1, node3].map((p) => p.waitFor(() => p.last()?.total === 6, CRASH_BOUND, 'total 6')));
    const took = performance.now() - killedAt;
    console.info(`cluster-test: node2 killed, node1 and node3 re-balanced after ${Math.round(took)} ms (T + 4I = ${T + 4 * I} ms)`);
    expect(node1.last()).toEqual({ index: 0, threads: 2, total: 6 });
    expect(node3.last()).toEqual({ index: 2, threads: 4, total: 6 });

    node3.signal('SIGINT');
    expect(await node3.exited).toBe(0);
    expect(node3.stdout).toMatch(
      /cluster-test: signal received, will terminate\ncluster-test: will now leave the cluster\ncluster-test: cluster has re-balanced:\n {3}instance index: {8}-1\n {3}instance thread count: 4\n {3}total thread count: {4}2\ncluster-test: successfully left the cluster\n$/,
    );
    // A graceful leave is seen by the others at once (within a couple of intervals).
    await node1.waitFor(() => node1.last()?.total === 2, 10 * I + 2000, 'total 2');
    expect(node1.last()).toEqual({ index: 0, threads: 2, total: 2 });

    node1.signal('SIGINT');
    expect(await node1.exited).toBe(0);
    expect(node1.last()).toEqual({ index: -1, threads: 2, total: 0 });
    expect(node1.stdout).toMatch(/cluster-test: successfully left the cluster\n$/);
  });

  it('defaults to -k cluster-test -e production; another environment of the same key is another cluster', async () => {
    const prod = startClusterTest('-i', 'p1', '-r', redis.url, ...TIMING);
    const dev = startClusterTest('-i', 'd1', '-e', 'dev', '-r', redis.url, ...TIMING);
    await Promise.all([prod, dev].map((p) => p.waitForLine('cluster joined', 10 * T)));
    await new Promise((resolve) => setTimeout(resolve, 4 * I));
    expect(prod.last()).toEqual({ index: 0, threads: 1, total: 1 });
    expect(dev.last()).toEqual({ index: 0, threads: 1, total: 1 });
    const client = new Redis(redis.url);
    try {
      expect(await client.get('roster/cluster-test/production/leader 0')).toMatch(/ p1$/);
      expect(await client.get('roster/cluster-test/dev/leader 0')).toMatch(/ d1$/);
    } finally {
      client.disconnect();
    }
    prod.signal('SIGTERM');
    dev.signal('SIGINT');
    expect(await prod.exited).toBe(0);
    expect(await dev.exited).toBe(0);
  });

  it('-v prints libcluster-style lines on stderr: the sorted instances with "*" for this one and their bases', async () => {
    const k = freshKey();
    const a = startClusterTest('-v', '-k', k, '-e', 'dev', '-i', 'alpha', '-n', '3', '-r', redis.url, ...TIMING);
    await a.waitForLine('cluster joined', 10 * T);
    const b = startClusterTest('-k', k, '-e', 'dev', '-i', 'beta', '-r', redis.url, ...TIMING);
    await a.waitFor(() => a.last()?.total === 4, 10 * T, 'total 4');
    expect(a.stderr).toContain(`libcluster<7>: cluster: re-balancing cluster ${k}/dev:\nlibcluster<7>: * alpha [0]\nlibcluster<7>:   beta [3]\n`);
    expect(a.stderr).toContain(`libcluster<5>: cluster: cluster ${k}/dev has re-balanced: new base is 0 (was 0), new total is 4 (was 3)`);
    expect(a.stderr).toContain('libcluster<7>: cluster: re-balanced; this instance has index 0 (3 threads) from a total of 4');
    expect(b.stderr).toBe('');
    a.signal('SIGINT');
    b.signal('SIGINT');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  });

  it('Ctrl-C before the instance is a member leaves without a re-balance and exits 0', async () => {
    // A lone instance needs T + 2I to lead; interrupt it well before.
    const p = startClusterTest('-k', freshKey(), '-r', redis.url, '--interval', '1000', '--timeout', '5000');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    p.signal('SIGINT');
    expect(await p.exited).toBe(0);
    expect(p.stdout).toBe('cluster-test: signal received, will terminate\ncluster-test: will now leave the cluster\ncluster-test: successfully left the cluster\n');
  });

  it('an unreachable store is reported and exits 2', async () => {
    const p = startClusterTest('-r', 'redis://127.0.0.1:1', ...TIMING);
    expect(await p.exited).toBe(2);
    expect(p.stderr).toMatch(/^cluster-test: could not join cluster cluster-test\/production: /);
  });
});

describe('cluster-test in static mode, without any store', () => {
  it('-n 2 -I 4 -T 8 prints index 4 of 8 at once; SIGTERM leaves with index −1', async () => {
    const p = startClusterTest('-n', '2', '-I', '4', '-T', '8');
    await p.waitForLine('cluster-test: cluster joined; sleeping until terminated', 10_000);
    expect(p.balances()).toEqual([{ index: 4, threads: 2, total: 8 }]);
    p.signal('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.balances()).toEqual([
      { index: 4, threads: 2, total: 8 },
      { index: -1, threads: 2, total: 8 },
    ]);
    expect(p.stdout).toMatch(/will now leave the cluster\n[\s\S]*successfully left the cluster\n$/);
    expect(p.stderr).toBe('');
  });

  it('-I alone defaults the total to INDEX + threads', async () => {
    const p = startClusterTest('-I', '3', '-n', '2');
    await p.waitForLine('cluster joined', 10_000);
    expect(p.last()).toEqual({ index: 3, threads: 2, total: 5 });
    p.signal('SIGINT');
    expect(await p.exited).toBe(0);
  });
});

describe('cluster-test arguments', () => {
  it('-h prints the usage and exits 0', async () => {
    const p = startClusterTest('-h');
    expect(await p.exited).toBe(0);
    expect(p.stdout).toMatch(/^Usage: cluster-test \[OPTIONS\]\n/);
    for (const flag of ['-h', '-v', '-k GROUP', '-e ENV', '-i ID', '-n COUNT', '-r URL', '-I INDEX', '-T COUNT']) expect(p.stdout).toContain(`  ${flag} `);
  });

  it.each([
    [[], /give -r URL/],
    [['-r', 'redis://127.0.0.1:6379', '-I', '0'], /not both/],
    [['-I', '3', '-T', '4', '-n', '2'], /static\.index/],
    [['-n', '0', '-I', '0'], /-n must be/],
    [['-r', 'http://127.0.0.1:2379/'], /invalid store URL/],
    [['-x'], /unknown option -x/],
  ])('%j is refused with exit code 2', async (args, message) => {
    const p = startClusterTest(...(args as string[]));
    expect(await p.exited).toBe(2);
    expect(p.stderr).toMatch(message);
    expect(p.stdout).toBe('');
  });
});
