/**
 * What a dead Redis Cluster master costs a group of `roster node` processes (docs/faults.md, "No
 * reconnect storm"): 5 nodes at `I=100/T=500` (`ROSTER_TIMING=I/T` to change) on a 3-master
 * cluster; 10 s at rest, then the master serving `leader 0` is SIGKILLed and the nodes are watched
 * for 60 s. Per node and window: TCP connection attempts per second (to the dead master and in
 * all, counted in each node by support/countConnects.cjs), CPU time as a share of one core, and
 * stderr lines per minute (the default log level). Prints the figures; asserts nothing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';
import { startRedisCluster } from './support/redis.js';
import { killAllNodes, startRoster, type RosterNodeProcess } from './support/rosterNode.js';

interface Sample {
  readonly perPort: Record<string, number>;
  readonly cpuMs: number;
}

const [I, T] = (process.env.ROSTER_TIMING ?? '100/500').split('/').map(Number) as [number, number];
const REST_MS = 10_000;
const FAULT_MS = 60_000;

it(`one SIGKILLed master, 5 nodes at I=${I}/T=${T}: connection attempts, CPU and log lines`, { timeout: 300_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'roster-storm-'));
  const cluster = await startRedisCluster(3);
  const saved = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${saved ?? ''} --require ${fileURLToPath(new URL('./support/countConnects.cjs', import.meta.url))}`.trim();
  process.env.ROSTER_CONNECT_COUNT_DIR = dir;
  try {
    const nodes: RosterNodeProcess[] = [];
    for (let i = 1; i <= 5; i++) {
      nodes.push(startRoster('node', '--json', '--store', cluster.url, '--group', 'storm', '--env', 'm', '--id', `n${i}`, '--interval', String(I), '--timeout', String(T)));
    }
    process.env.NODE_OPTIONS = saved;
    while (!nodes.every((n) => n.members.length === 5)) await new Promise((r) => setTimeout(r, 100));
    const dead = await cluster.nodeFor('roster/storm/m/leader 0');
    const sample = async (): Promise<{ s: Sample[]; lines: number[] }> => ({
      s: await Promise.all(nodes.map(async (n) => JSON.parse(await readFile(join(dir, `${n.child.pid}.json`), 'utf8')) as Sample)),
      lines: nodes.map((n) => n.stderr.split('\n').length),
    });
    const report = (what: string, a: Awaited<ReturnType<typeof sample>>, b: Awaited<ReturnType<typeof sample>>, ms: number): void => {
      const rows = nodes.map((_, i) => {
        const port = (s: Sample, p: number): number => s.perPort[String(p)] ?? 0;
        const all = (s: Sample): number => Object.values(s.perPort).reduce((x, y) => x + y, 0);
        const toDead = port(b.s[i]!, dead.port) - port(a.s[i]!, dead.port);
        const total = all(b.s[i]!) - all(a.s[i]!);
        const cpu = (b.s[i]!.cpuMs - a.s[i]!.cpuMs) / ms;
        const lines = b.lines[i]! - a.lines[i]!;
        return `n${i + 1}: connects ${(toDead / (ms / 1000)).toFixed(1)}/s to the dead master, ${(total / (ms / 1000)).toFixed(1)}/s in all; CPU ${(cpu * 100).toFixed(1)} % of a core; ${((lines * 60_000) / ms).toFixed(1)} stderr lines/min`;
      });
      process.stdout.write(`${what} (${ms / 1000} s):\n  ${rows.join('\n  ')}\n`);
    };
    await new Promise((r) => setTimeout(r, 1000));
    const rest0 = await sample();
    await new Promise((r) => setTimeout(r, REST_MS));
    const rest1 = await sample();
    report('at rest', rest0, rest1, REST_MS);
    await dead.crash();
    await new Promise((r) => setTimeout(r, FAULT_MS));
    const fault1 = await sample();
    report(`master ${dead.address} SIGKILLed`, rest1, fault1, FAULT_MS);
    process.stdout.write(`stderr of n1 since the fault:\n${nodes[0]!.stderr.split('\n').slice(rest1.lines[0]! - 1).join('\n')}\n`);
  } finally {
    process.env.NODE_OPTIONS = saved;
    delete process.env.ROSTER_CONNECT_COUNT_DIR;
    await killAllNodes();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
