/**
 * What NATS JetStream's own faults do to a group (docs/faults.md): 5 `roster node --json`
 * processes at I = 100 ms, T = 500 ms on a 3-server JetStream cluster (the bucket with 3
 * replicas); the stream leader of the bucket, the meta leader, or a server leading neither is
 * SIGKILLed, and we record when the Roster leader stopped reporting `leader`, when one led again,
 * whether two ever reported `leader` at once, and how long a join then took. Prints the figures;
 * asserts only safety (never two leaders).
 *
 *   pnpm --filter @roster/integration-tests exec vitest run --config vitest.measure.config.ts nats-faults
 *
 * `ROSTER_NATS_RUNS` runs per fault (default 2); `ROSTER_NATS_INTERVAL` and `ROSTER_NATS_TIMEOUT`
 * set I and T (100 ms and 5I by default).
 */
import os from 'node:os';
import { NatsKV } from '@roster/kv-adapter/nats';
import { LocalNatsCluster } from '@roster/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

const I = Number(process.env.ROSTER_NATS_INTERVAL ?? 100);
const T = Number(process.env.ROSTER_NATS_TIMEOUT ?? 5 * I);
const RUNS = Number(process.env.ROSTER_NATS_RUNS ?? 2);

let cluster: LocalNatsCluster;
let buckets = 0;
beforeAll(async () => {
  cluster = await LocalNatsCluster.start({ ...(process.env.ROSTER_NATS_BINARY && { binary: process.env.ROSTER_NATS_BINARY }) });
});
afterAll(async () => {
  await killAllNodes();
  await cluster?.stop();
  console.info(
    [
      `5 roster node processes, I = ${I} ms, T = ${T} ms, a 3-server nats-server cluster, bucket replicas 3; load average per run: ${loads.join(', ')}`,
      '| server killed | the servers agreed on the leaders again after | a client saw the store fail (from, to after the kill) | Roster leader lapsed after | a leader again after the kill | two leaders | join after | stderr lines (max per process) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
});

type RoleLine = { ts: number; role: string };
const roles = (p: RosterNodeProcess): RoleLine[] => p.events.filter((e) => e.event === 'role') as unknown as RoleLine[];

/** The spans during which `p` reported `leader`. */
function leaderSpans(p: RosterNodeProcess): [number, number][] {
  const lines = roles(p);
  return lines.flatMap((line, i) => (line.role === 'leader' ? [[line.ts, lines[i + 1]?.ts ?? Date.now()] as [number, number]] : []));
}

function doubleLeaderMs(nodes: readonly RosterNodeProcess[]): number {
  const spans = nodes.flatMap((p, owner) => leaderSpans(p).map(([from, to]) => ({ owner, from, to })));
  let worst = 0;
  for (const a of spans) for (const b of spans) if (a.owner < b.owner) worst = Math.max(worst, Math.min(a.to, b.to) - Math.max(a.from, b.from));
  return worst;
}

const rows: string[] = [];
/** The 1-minute load average at the start of each run: figures on a loaded machine are not a quiet one's. */
const loads: string[] = [];

for (const fault of ['stream leader', 'meta leader', 'a server leading neither'] as const) {
  it(`the ${fault} of the NATS cluster killed, ${RUNS} runs`, { timeout: 300_000 }, async () => {
    for (let run = 0; run < RUNS; run++) {
      const load = os.loadavg()[0]!.toFixed(1);
      loads.push(load);
      const bucket = `faults-${++buckets}`;
      const url = cluster.url(bucket, 3);
      const start = (id: string): RosterNodeProcess => startRoster('node', '--json', '--store', url, '--group', 'g', '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T));
      // The bucket first, so that five processes do not all wait for a new stream's leader at start.
      const probe = await NatsKV.connect({ url, connectTimeoutMs: 20_000, commandTimeoutMs: I / 2 });
      const nodes = ['a', 'b', 'c', 'd', 'e'].map(start);
      const describe = (): string => nodes.map((p) => p.describe()).join('\n\n');
      const settled = (live: readonly RosterNodeProcess[]): boolean => {
        const leaders = live.filter((p) => p.role === 'leader');
        return leaders.length === 1 && live.every((p) => p.leader?.id === leaders[0]!.events[0]!.id && p.members.length === live.length);
      };
      let killed: { name: string } | undefined;
      let probing = false;
      try {
        await until(() => settled(nodes), 60_000, describe);
        const streamLeader = await cluster.streamLeader(`KV_${bucket}`);
        const metaLeader = await cluster.metaLeader();
        const victim =
          fault === 'stream leader' ? streamLeader : fault === 'meta leader' ? metaLeader : cluster.servers.find((s) => s.name !== streamLeader && s.name !== metaLeader)?.name;
        if (victim === undefined) {
          rows.push(`| ${fault} | (one server leads both: skipped) | | | | | | |`);
          continue;
        }
        await until(() => settled(nodes), 30_000, describe);
        const before = nodes.find((p) => p.role === 'leader')!;
        // The store as a client sees it: a compare-and-set every 20 ms, with the nodes' deadline (I/2).
        const outage = { first: undefined as number | undefined, last: undefined as number | undefined, failures: 0 };
        probing = true;
        const probed = (async () => {
          while (probing) {
            const ok = await probe.compareAndSet('probe', null, 'x').then(() => probe.delete('probe')).then(() => true, () => false);
            if (!ok) {
              outage.first ??= Date.now();
              outage.last = Date.now();
              outage.failures++;
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        const faultAt = Date.now();
        killed = await cluster.kill({ name: victim });
        // The store's own recovery first (the running servers agree on the stream's and the meta
        // leader), then 2T for the group to act on it, then the group settled.
        await cluster.streamLeader(`KV_${bucket}`);
        await cluster.metaLeader();
        const storeBackAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 2 * T));
        await until(() => settled(nodes), 60_000, describe);
        const lapse = roles(before).find((r) => r.ts >= faultAt && r.role !== 'leader');
        const again = lapse === undefined ? undefined : Math.min(...nodes.flatMap((p) => roles(p).filter((r) => r.role === 'leader' && r.ts >= lapse.ts).map((r) => r.ts)));
        const joiner = startRoster('node', '--json', '--store', url, '--group', 'g', '--env', 'test', '--id', 'f', '--interval', String(I), '--timeout', String(T));
        await until(() => joiner.events.length > 0, 20_000, () => joiner.describe());
        const joinFrom = joiner.events[0]!.ts;
        await until(() => settled([...nodes, joiner]), 30_000, describe);
        const join = Date.now() - joinFrom;
        probing = false;
        await probed;
        const storeOut = outage.first === undefined ? 'none' : `${outage.first - faultAt}–${outage.last! - faultAt} ms (${outage.failures} failed)`;
        const double = doubleLeaderMs([...nodes, joiner]);
        expect(double, describe()).toBe(0);
        const stderr = Math.max(...nodes.map((p) => p.stderr.split('\n').filter((l) => l !== '').length));
        const also = `${victim === metaLeader && fault !== 'meta leader' ? ' (also the meta leader)' : ''}${victim === streamLeader && fault !== 'stream leader' ? ' (also the stream leader)' : ''}`;
        rows.push(`| ${fault}${also} | ${storeBackAt - faultAt} ms | ${storeOut} | ${lapse ? `${lapse.ts - faultAt} ms` : 'kept'} | ${again === undefined ? '—' : `${again - faultAt} ms`} | ${double} ms | ${join} ms | ${stderr} |`);
      } finally {
        probing = false;
        await probe.close();
        await killAllNodes();
        if (killed) await cluster.restart(killed);
      }
    }
  });
}
