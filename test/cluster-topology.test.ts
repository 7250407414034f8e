/**
 * Issue 29 with real processes: 5 `roster node --json` processes (I = 100 ms, T = 500 ms) on a
 * Redis Cluster of 3 masters with 1 replica each (`cluster-node-timeout 1000`), through the
 * topology changes an operator makes: graceful failovers of every shard (the one holding the
 * leader's current nonce first, five times), a FORCE and a TAKEOVER failover, a master killed and replaced by
 * its replica, a live resharding of the leader nonce's slot held MIGRATING for 3 intervals, and a
 * 6th node joining during a failover. After each: no leadership change (every leader line names
 * the leader and era of before), not one millisecond with two nodes whose last role line says
 * `leader` (from the lines' own timestamps), no process exited, and the joiner listed by every node
 * within 2T + 4I (plus slack for a loaded machine). A member dropped and listed again is reported.
 *
 * One cluster and one group of processes serve every step, in order (each step starts from the
 * agreement the previous one left); they are killed in `afterAll`, whatever happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRedisCluster, type LocalRedisShard } from '@roster/testing';
import { TopologyGroup, groupKey, leaderNonce, sleep, type LeaderId, type WindowReport } from './support/clusterTopology.js';
import { redisServerBinary } from './support/redis.js';
import { killAllNodes } from './support/rosterNode.js';

const I = 100;
const T = 500;
/** Slack on every protocol bound, for a loaded 2-core machine. */
const SLACK = 2000;
/** How long the group is watched after a topology change has settled. */
const WATCH_MS = 2 * T + 4 * I + 600;

describe(`roster node processes (I=${I}, T=${T}) through failovers and live resharding of a 3+3 Redis Cluster`, () => {
  let cluster: LocalRedisCluster;
  let group: TopologyGroup;
  const members = ['n1', 'n2', 'n3', 'n4', 'n5'];
  let runStarted = 0;
  let baseline: LeaderId;

  beforeAll(async () => {
    const binary = redisServerBinary();
    if (!binary) throw new Error('needs redis-server (apt-get install redis-server, or set ROSTER_REDIS_SERVER)');
    cluster = await LocalRedisCluster.start({ binary, replicas: 1, nodeTimeoutMs: 1000 });
    group = new TopologyGroup(cluster.url, I, T);
    for (const id of members) group.start(id);
    await group.waitAgreed(members, 30_000, 'the first election');
    baseline = group.agreedLeader()!;
    runStarted = Date.now();
  }, 60_000);

  afterAll(async () => {
    try {
      await killAllNodes();
    } finally {
      await cluster?.stop();
    }
  });

  /**
   * Runs `change` under the group (and starts `joiner` right before it), watches for
   * {@link WATCH_MS} once it has settled, waits for agreement, and reports the window.
   */
  async function observe(what: string, change: () => Promise<string>, joiner?: string): Promise<WindowReport & { joinMs: number | undefined }> {
    await group.waitAgreed(members, 10 * T + SLACK, `before ${what}`);
    const before = group.agreedLeader()!;
    const nonceBefore = (await leaderNonce(cluster, before.id)).nonce;
    const stderrBefore = group.nodes.map((n) => n.stderr.length);
    const from = Date.now();
    if (joiner) {
      group.start(joiner);
      members.push(joiner);
    }
    const done = await change();
    await sleep(WATCH_MS);
    await group.waitAgreed(members, 10 * T + SLACK, `after ${what}`);
    const to = Date.now();
    const report = { ...group.analyse(before, from, to), joinMs: joiner ? group.joinMs(joiner) : undefined };
    const nonceAfter = (await leaderNonce(cluster, before.id)).nonce;
    const stderr = group.nodes.map((n, i) => ({ id: n.events[0]?.id ?? '?', lines: n.stderr.slice(stderrBefore[i] ?? 0).trim().split('\n').filter(Boolean) }));
    console.info(`${what}: ${done}; ${JSON.stringify(report)} in ${to - from} ms; leader nonce ${nonceBefore} → ${nonceAfter}; stderr lines ${stderr.map((n) => `${n.id}: ${n.lines.length}`).join(', ')}`);
    const logs = stderr.flatMap((n) => n.lines.map((line) => `  ${n.id}: ${line}`)).join('\n');
    // A member dropped and listed again (its PINGs stalled for T while its id key's shard failed
    // over) is no safety matter and not part of the claim: reported, not asserted.
    if (report.removed.length > 0) console.warn(`${what}: members dropped and listed again: ${report.removed.join(' ')}\n${logs}`);
    expect(report.leaders, `${what}: the leaders named\n${logs}`).toEqual([`${before.id}@${before.era}`]);
    expect(report.leaderChanges).toBe(0);
    expect(report.dualLeaderMs, `${what}: ms with two nodes saying leader\n${logs}`).toBe(0);
    expect(group.nodes.filter((n) => !n.alive).map((n) => n.describe())).toEqual([]);
    return report;
  }

  /** The master holding the leader's current nonce. */
  async function leaderMaster(): Promise<{ master: LocalRedisShard; nonce: number }> {
    const { master, nonce } = await leaderNonce(cluster, group.agreedLeader()!.id);
    return { master, nonce };
  }

  // Before issue 29's fix about 1 in 5 of these made a follower stand (cluster-topology.measure.ts): five in a row.
  it('graceful failovers of the master holding the leader nonce, five in a row', { timeout: 60_000 }, async () => {
    for (let round = 1; round <= 5; round++) {
      await observe(`graceful failover ${round} of the leader nonce shard`, async () => {
        const { master, nonce } = await leaderMaster();
        const f = await cluster.failover(master, 'graceful');
        expect(cluster.shards).toContain(f.to);
        expect(cluster.shards).not.toContain(master);
        return `leader ${nonce}: ${f.from.address} → ${f.to.address} in ${Math.round(f.waitedMs)} ms`;
      });
    }
  });

  it('a graceful failover of each other shard', { timeout: 40_000 }, async () => {
    const { master } = await leaderMaster();
    for (const shard of cluster.shards.filter((s) => s !== master)) {
      await observe(`graceful failover of ${shard.address}`, async () => {
        const f = await cluster.failover(shard, 'graceful');
        return `${f.from.address} → ${f.to.address} in ${Math.round(f.waitedMs)} ms`;
      });
    }
  });

  it.each(['force', 'takeover'] as const)('a %s failover of the master holding the leader nonce', { timeout: 30_000 }, async (mode) => {
    await observe(`${mode} failover of the leader nonce shard`, async () => {
      const { master, nonce } = await leaderMaster();
      const f = await cluster.failover(master, mode);
      return `leader ${nonce}: ${f.from.address} → ${f.to.address} in ${Math.round(f.waitedMs)} ms`;
    });
  });

  it('the master holding the leader nonce killed, and its replica promoted by the cluster', { timeout: 40_000 }, async () => {
    let killed: LocalRedisShard | undefined;
    await observe('leader nonce master killed', async () => {
      const { master, nonce } = await leaderMaster();
      const f = await cluster.killMaster(master);
      killed = f.from;
      return `leader ${nonce}: ${f.from.address} killed, ${f.to.address} promoted after ${Math.round(f.waitedMs)} ms`;
    });
    await cluster.restart(killed!); // back as a replica, for the steps that follow
  });

  it(`a live resharding of the leader nonce's slot, held MIGRATING for ${3 * I} ms`, { timeout: 30_000 }, async () => {
    await observe('live resharding of the leader nonce slot', async () => {
      const { master, nonce } = await leaderMaster();
      const slot = await cluster.slotOf(groupKey(`leader ${nonce}`));
      const to = cluster.shards.find((s) => s !== master)!;
      const m = await cluster.migrateSlot(slot, to, { holdMs: 3 * I });
      expect(await cluster.shardForSlot(slot)).toBe(to);
      return `leader ${nonce} (slot ${slot}, ${m.keys} keys): ${m.from.address} → ${m.to.address} in ${Math.round(m.tookMs)} ms`;
    });
  });

  it('a 6th node joining during a graceful failover of the join key shard is listed everywhere within 2T + 4I', { timeout: 30_000 }, async () => {
    const report = await observe(
      'n6 joining during a failover of the join key shard',
      async () => {
        const f = await cluster.failover(await cluster.shardFor(groupKey('join 0')), 'graceful');
        return `join 0: ${f.from.address} → ${f.to.address} in ${Math.round(f.waitedMs)} ms`;
      },
      'n6',
    );
    expect(report.joinMs).toBeDefined();
    expect(report.joinMs!).toBeLessThanOrEqual(2 * T + 4 * I + SLACK);
  });

  it('over the whole run: the first leader kept, never two nodes saying leader', () => {
    const report = group.analyse(baseline, runStarted, Date.now());
    console.info(`whole run: ${JSON.stringify(report)}`);
    expect(report.leaders).toEqual([`${baseline.id}@${baseline.era}`]);
    expect(report.dualLeaderMs).toBe(0);
  });
});
