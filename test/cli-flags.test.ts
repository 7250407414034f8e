/**
 * The flags of `roster node` that shape its timing, as real processes on a real redis-server: a
 * derived renew deadline that no value could satisfy is refused in the flags' words, and the
 * configuration the message leads to runs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAllNodes, runRoster, startRoster, until } from './support/rosterNode.js';
import { startRedis, type RedisTestServer } from './support/redis.js';

/** Real processes on a shared 2-core machine: wide bounds. */
const WAIT = 30_000;

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await killAllNodes();
});
afterAll(async () => {
  await killAllNodes();
  await redis?.stop();
});

const key = (): string => `flags${Math.random().toString(36).slice(2, 8)}`;

describe('roster node --renew-deadline', () => {
  it('--interval 200 --timeout 401 leaves no renew deadline: exit 2, one line naming the flags to change', async () => {
    const { exit, stdout, stderr } = await runRoster(['node', '--store', redis.url, '--group', key(), '--env', 'test', '--interval', '200', '--timeout', '401']);
    expect(exit.code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'roster node: --timeout 401 with --interval 200 leaves no valid default --renew-deadline (--timeout / 2 = 200 must be more than ' +
        '--interval 200 and less than --timeout − --interval = 201): raise --timeout to at least 402\n',
    );
  });

  it('--interval 200 --timeout 420 --renew-deadline 210 runs: the node leads, and logs the renew deadline it runs with', async () => {
    const node = startRoster('node', '--store', redis.url, '--group', key(), '--env', 'test', '--id', 'r1', '--interval', '200', '--timeout', '420', '--renew-deadline', '210', '--json');
    await until(() => node.leader?.id === 'r1', WAIT, () => node.describe());
    await until(() => /node running .*renewDeadlineMs=210/.test(node.stderr), WAIT, () => node.describe());
    node.signal('SIGTERM');
    expect((await node.exited).code).toBe(0);
  });
});
