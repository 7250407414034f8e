/**
 * The soak run (`pnpm soak --minutes N`): five `roster node` processes on a real redis-server,
 * reached through the TCP proxy, go through repeated faults for N minutes (every connection cut,
 * the server restarted empty, the network down for 2T, a follower frozen past T). After each fault
 * the cluster must converge again; each node's resident memory, V8 heap, open file descriptors
 * and active handles (its `/metrics`) are sampled, printed, and must stay flat: the last quarter of
 * the run no higher than the first quarter's after warm-up, within the slack below.
 */
import { afterAll, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from '../support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from '../support/rosterNode.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';

const MINUTES = Number(process.env.ROSTER_SOAK_MINUTES ?? '2');
const I = 200;
const T = 1000;
const GENEROUS = 2 * (2 * T + 4 * I) + 5000;
const IDS = ['s0', 's1', 's2', 's3', 's4'];

interface Sample {
  readonly atS: number;
  readonly fault: string;
  readonly rssMb: number;
  readonly heapMb: number;
  readonly fds: number;
  readonly handles: number;
}

let redis: RedisTestServer | undefined;
let proxy: TcpProxy | undefined;
afterAll(async () => {
  await killAllNodes();
  await proxy?.close();
  await redis?.stop();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function converged(nodes: RosterNodeProcess[]): boolean {
  const leader = nodes[0]?.leader;
  if (!leader) return false;
  return nodes.every((p) => p.alive && p.leader?.id === leader.id && p.leader.token === leader.token && p.members.join(',') === IDS.join(','));
}

async function metric(url: string): Promise<{ rss: number; heap: number; fds: number; handles: number }> {
  const text = await (await fetch(`${url}metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    rss: value('process_resident_memory_bytes'),
    heap: value('nodejs_heap_size_used_bytes'),
    fds: value('process_open_fds'),
    handles: value('nodejs_active_handles_total'),
  };
}

it(`five nodes through ${MINUTES} minutes of repeated faults: always converge again, memory and handles flat`, async () => {
  redis = await startRedis();
  proxy = await startTcpProxy(redis.port, { delayMs: 5 });
  const nodes = IDS.map((id) =>
    startRoster('node', '--json', '--store', `redis://127.0.0.1:${proxy!.port}`, '--group', 'soak', '--env', 'soak', '--id', id, '--interval', String(I), '--timeout', String(T), '--status-port', '0'),
  );
  const describeAll = (): string => nodes.map((p) => p.describe().slice(-800)).join('\n');
  await until(() => nodes.every((p) => /status page url=http/.test(p.stderr)) && converged(nodes), 10 * T + GENEROUS, describeAll);
  const urls = nodes.map((p) => /status page url=(http:\/\/127\.0\.0\.1:\d+\/)/.exec(p.stderr)![1]!);

  const faults: [string, () => Promise<void>][] = [
    ['cut', async () => proxy!.dropAll()],
    ['redis-restart', async () => redis!.restart()],
    ['network-down', async () => {
      proxy!.setRefusing(true);
      proxy!.dropAll();
      await sleep(2 * T);
      proxy!.setRefusing(false);
    }],
    ['freeze-follower', async () => {
      const leader = nodes[0]!.leader!.id;
      const follower = nodes.find((p) => p.events[0]?.id !== leader)!;
      follower.signal('SIGSTOP');
      await sleep(2 * T);
      follower.signal('SIGCONT');
    }],
  ];
  const samples: Sample[] = [];
  const started = Date.now();
  const endAt = started + MINUTES * 60_000;
  let round = 0;
  let worstRecoveryMs = 0;
  while (Date.now() < endAt) {
    const [name, fault] = faults[round % faults.length]!;
    round++;
    await fault();
    worstRecoveryMs = Math.max(worstRecoveryMs, await until(() => converged(nodes), GENEROUS, () => `no convergence after ${name} (round ${round}):\n${describeAll()}`));
    await sleep(T);
    const ms = await Promise.all(urls.map(metric));
    samples.push({
      atS: Math.round((Date.now() - started) / 1000),
      fault: name,
      rssMb: Math.max(...ms.map((m) => m.rss)) / 2 ** 20,
      heapMb: Math.max(...ms.map((m) => m.heap)) / 2 ** 20,
      fds: Math.max(...ms.map((m) => m.fds)),
      handles: Math.max(...ms.map((m) => m.handles)),
    });
  }
  for (const p of nodes) expect(p.alive, p.describe()).toBe(true);

  const quarter = Math.max(1, Math.floor(samples.length / 4));
  // The first samples are warm-up (JIT, buffers): compare the second quarter with the last.
  const early = samples.slice(quarter, 2 * quarter);
  const late = samples.slice(-quarter);
  const mean = (xs: Sample[], f: (s: Sample) => number): number => xs.reduce((a, s) => a + f(s), 0) / xs.length;
  const lines = [
    `soak: ${MINUTES} min, ${round} faults, 5 nodes, worst recovery ${Math.round(worstRecoveryMs)} ms`,
    'time(s) fault            rss(MB) heap(MB) fds handles (max over the 5 nodes)',
    ...samples.map((s) => `${String(s.atS).padStart(7)} ${s.fault.padEnd(16)} ${s.rssMb.toFixed(1).padStart(7)} ${s.heapMb.toFixed(1).padStart(8)} ${String(s.fds).padStart(3)} ${String(s.handles).padStart(7)}`),
    `second quarter mean: rss ${mean(early, (s) => s.rssMb).toFixed(1)} MB, heap ${mean(early, (s) => s.heapMb).toFixed(1)} MB, fds ${mean(early, (s) => s.fds).toFixed(1)}, handles ${mean(early, (s) => s.handles).toFixed(1)}`,
    `last quarter mean:   rss ${mean(late, (s) => s.rssMb).toFixed(1)} MB, heap ${mean(late, (s) => s.heapMb).toFixed(1)} MB, fds ${mean(late, (s) => s.fds).toFixed(1)}, handles ${mean(late, (s) => s.handles).toFixed(1)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  expect(samples.length).toBeGreaterThanOrEqual(4);
  // Flat: no more than 20% (heap, RSS) or 3 (descriptors, handles) above the second quarter.
  expect(mean(late, (s) => s.heapMb)).toBeLessThan(mean(early, (s) => s.heapMb) * 1.2);
  expect(mean(late, (s) => s.rssMb)).toBeLessThan(mean(early, (s) => s.rssMb) * 1.2);
  expect(mean(late, (s) => s.fds)).toBeLessThanOrEqual(mean(early, (s) => s.fds) + 3);
  expect(mean(late, (s) => s.handles)).toBeLessThanOrEqual(mean(early, (s) => s.handles) + 3);
}, 0);
