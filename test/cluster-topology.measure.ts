/**
 * Issue 29's figures: `npx vitest run --config vitest.measure.config.ts cluster-topology.measure.ts`
 * (from test/). 5 `roster node` processes (I = 100 ms, T = 500 ms) on a Redis Cluster of 3 masters
 * with 1 replica each (`cluster-node-timeout 1000`):
 *
 * - 10 s of steady state: the store commands per member per interval (`total_commands_processed`
 *   summed over the masters, after − before, ÷ members ÷ intervals; a Lua script counts as itself
 *   plus each command it calls);
 * - 10 graceful failovers of the shard holding the leader's current nonce, then 5 live reshardings
 *   of that nonce's slot to another master (held MIGRATING for 3I), each with a node joining as it
 *   starts (and leaving after). Per round: leader changes, ms with two nodes saying leader, ms until
 *   every node follows one leader, the joiner's admission, and the leader's nonce before and after.
 *
 * `ROSTER_FAILOVERS` and `ROSTER_RESHARDS` change the counts. Asserts nothing (the bounds are in
 * cluster-topology.test.ts).
 */
import { it } from 'vitest';
import { LocalRedisCluster, redisCommand } from '@roster/testing';
import { TopologyGroup, groupKey, leaderNonce, sleep, type WindowReport } from './support/clusterTopology.js';
import { redisServerBinary } from './support/redis.js';
import { killAllNodes, type RosterNodeProcess } from './support/rosterNode.js';

const I = 100;
const T = 500;
const FAILOVERS = Number(process.env.ROSTER_FAILOVERS ?? 10);
const RESHARDS = Number(process.env.ROSTER_RESHARDS ?? 5);
const STEADY_MS = 10_000;
/** How long the group is watched after a change has settled. */
const WATCH_MS = 2 * T + 4 * I + 600;

interface Round extends WindowReport {
  readonly round: number;
  readonly change: string;
  readonly joinMs: number | undefined;
  readonly nonces: string;
  readonly changeMs: number;
}

it('measures a group through failovers and live reshardings of the leader nonce shard', { timeout: 1_800_000 }, async () => {
  const binary = redisServerBinary();
  if (!binary) throw new Error('needs redis-server');
  const cluster = await LocalRedisCluster.start({ binary, replicas: 1, nodeTimeoutMs: 1000 });
  try {
    const group = new TopologyGroup(cluster.url, I, T);
    const members = ['n1', 'n2', 'n3', 'n4', 'n5'];
    for (const id of members) group.start(id);
    await group.waitAgreed(members, 30_000, 'the first election');
    await sleep(2000);

    // Steady state.
    const commands = async (): Promise<number> => {
      let total = 0;
      for (const master of cluster.shards) total += Number(/total_commands_processed:(\d+)/.exec(String(await redisCommand(master.port, ['INFO', 'stats'])))![1]);
      return total;
    };
    const c0 = await commands();
    const t0 = performance.now();
    await sleep(STEADY_MS);
    const c1 = await commands();
    const elapsed = performance.now() - t0;
    const perMemberInterval = (c1 - c0) / members.length / (elapsed / I);
    const steady = `steady state: ${c1 - c0} commands on the masters in ${Math.round(elapsed)} ms, ${members.length} members: ${perMemberInterval.toFixed(2)} commands per member per interval (I = ${I} ms)`;
    process.stdout.write(`${steady}\n`);

    const rounds: Round[] = [];
    const plan = [...Array.from({ length: FAILOVERS }, () => 'failover' as const), ...Array.from({ length: RESHARDS }, () => 'reshard' as const)];
    for (const [i, kind] of plan.entries()) {
      await group.waitAgreed(members, 10 * T + 5000, `before round ${i + 1}`);
      const before = group.agreedLeader()!;
      const { nonce, master } = await leaderNonce(cluster, before.id);
      const joiner = `j${i + 1}`;
      const stderrBefore = new Map(group.nodes.map((n) => [n, n.stderr.length]));
      const from = Date.now();
      group.start(joiner);
      const started = performance.now();
      let change: string;
      if (kind === 'failover') {
        const f = await cluster.failover(master, 'graceful');
        change = `failover ${f.from.port}→${f.to.port}`;
      } else {
        const slot = await cluster.slotOf(groupKey(`leader ${nonce}`));
        const m = await cluster.migrateSlot(slot, cluster.shards.find((s) => s !== master)!, { holdMs: 3 * I });
        change = `slot ${slot} ${m.from.port}→${m.to.port}`;
      }
      const changeMs = Math.round(performance.now() - started);
      await sleep(WATCH_MS);
      await group.waitAgreed([...members, joiner], 10 * T + 5000, `after round ${i + 1}`).catch((error: Error) => process.stdout.write(`round ${i + 1}: ${error.message.split('\n')[0]}\n`));
      const to = Date.now();
      const after = group.agreedLeader();
      const nonceAfter = after ? (await leaderNonce(cluster, after.id)).nonce : '?';
      const round: Round = { round: i + 1, change, changeMs, ...group.analyse(before, from, to, [...members, joiner]), joinMs: group.joinMs(joiner), nonces: `${nonce}→${nonceAfter}` };
      rounds.push(round);
      process.stdout.write(`${JSON.stringify(round)}\n`);
      if (round.leaderChanges > 0 || round.dualLeaderMs > 0) process.stdout.write(`${whatHappened(group, from, to, stderrBefore)}\n`);
      // The joiner leaves gracefully; the next round starts from the five.
      group.node(joiner).signal('SIGTERM');
      await group.node(joiner).exited;
    }

    const row = (r: Round): string =>
      `| ${r.round} | ${r.change} (${r.changeMs} ms) | ${r.nonces} | ${r.leaderChanges} | ${r.dualLeaderMs} | ${r.unsettledMs} | ${r.joinMs ?? 'never'} |`;
    const sum = (f: (r: Round) => number): number => rounds.reduce((total, r) => total + f(r), 0);
    const joins = rounds.map((r) => r.joinMs).filter((v): v is number => v !== undefined);
    const table = [
      `I = ${I} ms, T = ${T} ms, 5 nodes, Redis Cluster 3 masters + 3 replicas, cluster-node-timeout 1000`,
      '| round | change | leader nonce | leader changes | dual-leader ms | ms until one leader | join ms |',
      '|---|---|---|---|---|---|---|',
      ...rounds.map(row),
      `| total | ${FAILOVERS} failovers, ${RESHARDS} reshardings | ${rounds.filter((r) => r.nonces.split('→')[0] !== r.nonces.split('→')[1]).length} moved | ${sum((r) => r.leaderChanges)} | ${sum((r) => r.dualLeaderMs)} | max ${Math.max(...rounds.map((r) => r.unsettledMs))} | max ${joins.length ? Math.max(...joins) : 'never'}, ${rounds.length - joins.length} never |`,
      steady,
    ].join('\n');
    process.stdout.write(`${table}\n`);
  } finally {
    await killAllNodes();
    await cluster.stop();
  }
});

/** The role lines of the window and what each node logged meanwhile, for a round whose leadership changed. */
function whatHappened(group: TopologyGroup, from: number, to: number, stderrBefore: ReadonlyMap<RosterNodeProcess, number>): string {
  const roles = group.nodes
    .flatMap((n) => n.events.filter((e) => e.event === 'role' && e.ts >= from && e.ts <= to))
    .sort((a, b) => a.ts - b.ts)
    .map((e) => `  +${e.ts - from} ms ${e.id}: ${e.event === 'role' ? `${e.previous} → ${e.role} (${e.reason})` : ''}`);
  const logs = group.nodes.flatMap((n) =>
    n.stderr
      .slice(stderrBefore.get(n) ?? 0)
      .split('\n')
      .filter(Boolean)
      .map((line) => `  ${n.events[0]?.id ?? '?'}: ${line}`),
  );
  return [...roles, ...logs].join('\n');
}
