/**
 * The smoke test of the harness: 3 real `roster node --json` processes on a real redis-server, one
 * crash failover and one short stall, and the shape of the records they give. No timing bounds:
 * figures belong to `pnpm bench`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Group } from '../src/harness/Group.js';
import { killAll, liveCount } from '../src/infra/processes.js';
import { startRedisServer, type RedisServer } from '../src/infra/redisServer.js';
import { measureFailover, measureStall } from '../src/measure/leadership.js';
import { ratioOf } from '../src/result.js';
import { rosterSystem } from '../src/systems/roster.js';

describe('the bench harness on real processes', () => {
  let redis: RedisServer;
  let group: Group;
  const progress: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    group = new Group(rosterSystem({ storeUrl: redis.url, group: `smoke-${Date.now()}`, intervalMs: 100, timeoutMs: 500 }));
    await group.start(3, 30_000);
  });

  afterAll(async () => {
    await group?.close();
    await redis?.stop();
    await killAll();
  });

  it('starts a group of roster processes that agree on one leader and list each other', () => {
    const live = group.live();
    expect(live).toHaveLength(3);
    expect(live.filter((n) => n.leading)).toHaveLength(1);
    for (const node of live) expect([...node.members].sort()).toEqual(live.map((n) => n.name).sort());
    expect(group.log.filter((l) => l.kind === 'ready')).toHaveLength(3);
  });

  it('measures a crash failover as the time from SIGKILL to another node leading, and replaces the killed node', async () => {
    const before = group.leader()!;
    const failover = await measureFailover(group, 1, (m) => progress.push(m));

    expect(failover.samplesMs.length + failover.missed).toBe(1);
    expect(failover.samplesMs).toHaveLength(1);
    expect(failover.samplesMs[0]).toBeGreaterThan(0);
    expect(failover.summary).toMatchObject({ n: 1, median: failover.samplesMs[0], p90: failover.samplesMs[0] });
    const after = await group.waitSteady(30_000);
    expect(after.name).not.toBe(before.name);
    expect(group.live()).toHaveLength(3);
  });

  it('measures a short stall try by try, and derives the tolerance and the ratio from them', async () => {
    const stall = await measureStall(group, { gridMs: 50, tries: 1, maxMs: 50 }, (m) => progress.push(m));

    expect(stall.tries).toHaveLength(1);
    const [t] = stall.tries;
    expect(t!.pauseMs).toBe(50);
    expect(t!.actualMs).toBeGreaterThanOrEqual(45); // a timer may fire a millisecond early
    expect(typeof t!.moved).toBe('boolean');
    expect(typeof t!.leaderSteppedDown).toBe('boolean');
    expect(stall.toleranceMs).toBe(t!.moved ? 0 : 50);
    expect(stall.censored).toBe(!t!.moved);
    const failover = { samplesMs: [500], missed: 0, summary: { n: 1, median: 500, p90: 500, min: 500, max: 500 } };
    expect(ratioOf(failover, stall)).toBe(t!.moved ? null : 10);
    expect(progress.some((line) => line.includes('stall 50 ms'))).toBe(true);
  });

  it('leaves no process behind once the group is closed', async () => {
    await group.close();
    await redis.stop();
    expect(liveCount()).toBe(0);
  });
});
