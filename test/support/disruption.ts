/**
 * Measures what a dead or frozen Redis Cluster shard does to a group of `roster node --json`
 * processes: a 3-master cluster (no replicas, `cluster-require-full-coverage no`), 5 nodes, then
 * the master serving the leader key's current nonce is SIGKILLed or SIGSTOPped. It then measures
 * leadership changes, time without one agreed leader, a join's admission, a failover during the
 * shard loss, the same again after the shard returns, and the nodes' stderr lines.
 */
import { startRedisCluster, type RedisClusterTestNode, type RedisTestCluster } from './redis.js';
import { killAllNodes, startRoster, type RosterNodeProcess } from './rosterNode.js';
import { waitFor } from '@roster/testing';

/** How the shard fails: `kill` (SIGKILL, refused connections), `stop` (SIGSTOP, everything hangs). */
export type ShardFault = 'kill' | 'stop';

/**
 * Whose shard fails: the leader key's current nonce, the join key's nonce 0, a follower's id key
 * (nonce 0) or the leader's own id key (nonce 0).
 */
export type FaultedKey = 'leader' | 'join' | 'follower-id' | 'leader-id';

/** What {@link measureDisruption} runs. */
export interface DisruptionOptions {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly fault: ShardFault;
  /** Whose shard fails. @defaultValue 'leader' */
  readonly key?: FaultedKey;
  /** How long to watch the group after the fault before the join. @defaultValue max(3T, 3000) */
  readonly watchMs?: number;
}

/** What {@link measureDisruption} saw. `undefined` durations never happened within their bound. */
export interface DisruptionReport {
  /** Whose shard failed. */
  readonly key: FaultedKey;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly fault: ShardFault;
  /** Leader changes per node (as each saw them) while watching after the fault. */
  readonly leaderChanges: readonly number[];
  /** Whether the leader before the fault was still the leader at the end of the watch. */
  readonly leaderKept: boolean;
  /** Total time, while watching, during which the live nodes did not all agree on one leader. */
  readonly leaderlessMs: number;
  /** A new node's admission (seen by every live node) during the shard loss. */
  readonly joinMs: number | undefined;
  /** Killing the leader during the shard loss: time until the others agree on a new one. */
  readonly failoverMs: number | undefined;
  /** After the shard returned: a new node's admission. */
  readonly joinAfterMs: number | undefined;
  /** After the shard returned: failover of a killed leader. */
  readonly failoverAfterMs: number | undefined;
  /** stderr lines per node from the fault to the end (the original five). */
  readonly stderrLines: readonly number[];
  /** Nodes that exited by themselves. */
  readonly exited: number;
  /** The last stderr lines of each node that exited by itself, for diagnosis. */
  readonly exitedStderr: readonly string[];
  /** The nonce of the leader key whose shard failed. */
  readonly nonce: number;
  /** What the first leader wrote on stderr after the fault, for diagnosis. */
  readonly leaderStderr: string;
}

const KEY = 'shard';
const ENV = 'fault';

/** Runs the whole scenario on a fresh cluster and tears everything down, even on failure. */
export async function measureDisruption(options: DisruptionOptions): Promise<DisruptionReport> {
  const cluster = await startRedisCluster(3);
  try {
    return await scenario(cluster, options);
  } finally {
    await killAllNodes();
    await cluster.stop();
  }
}

async function scenario(cluster: RedisTestCluster, o: DisruptionOptions): Promise<DisruptionReport> {
  const { intervalMs: I, timeoutMs: T, fault } = o;
  const watchMs = o.watchMs ?? Math.max(3 * T, 3000);
  const group = new Group(cluster.url, I, T);
  for (let i = 1; i <= 5; i++) group.start(`n${i}`);
  await group.waitAgreed(5, 20 * T + 10_000, 'initial election');
  const leader = group.agreedLeader()!;

  // The nonce the leader writes now: the one holding the highest Version of its leadership.
  const key = o.key ?? 'leader';
  const follower = ['n1', 'n2', 'n3', 'n4', 'n5'].find((id) => id !== leader)!;
  const { nonce, node: shard } =
    key === 'leader'
      ? await currentLeaderShard(cluster, leader)
      : { nonce: 0, node: await cluster.nodeFor(`roster/${KEY}/${ENV}/${key === 'join' ? 'join' : `id/${key === 'leader-id' ? leader : follower}`} 0`) };
  const stderrBase = group.nodes.map((n) => n.stderr.split('\n').length);
  const leaderEvents = group.nodes.map((n) => n.events.filter((e) => e.event === 'leader').length);
  if (fault === 'kill') await shard.crash();
  else shard.pause();

  const leaderlessMs = await group.watchLeaderless(watchMs);
  const leaderChanges = group.nodes.map((n, i) => n.events.filter((e) => e.event === 'leader').length - leaderEvents[i]!);
  const leaderKept = group.agreedLeader() === leader;

  const joinMs = await group.join('j1', 10 * T + 5000);
  const failoverMs = await group.failover(10 * T + 5000);

  if (fault === 'kill') await shard.start();
  else shard.resume();
  await new Promise((resolve) => setTimeout(resolve, 2 * T));
  const joinAfterMs = await group.join('j2', 10 * T + 5000);
  const failoverAfterMs = await group.failover(10 * T + 5000);

  return {
    intervalMs: I,
    timeoutMs: T,
    fault,
    key,
    leaderChanges,
    leaderKept,
    leaderlessMs,
    joinMs,
    failoverMs,
    joinAfterMs,
    failoverAfterMs,
    stderrLines: group.nodes.slice(0, 5).map((n, i) => n.stderr.split('\n').length - stderrBase[i]!),
    exited: group.nodes.filter((n) => !n.alive && !group.killed.has(n)).length,
    exitedStderr: group.nodes.filter((n) => !n.alive && !group.killed.has(n)).map((n) => n.stderr.split('\n').slice(-5).join('\n')),
    nonce,
    leaderStderr: group.nodes[Number(leader.slice(1)) - 1]!.stderr.split('\n').slice(stderrBase[Number(leader.slice(1)) - 1]! - 1).join('\n'),
  };
}

async function currentLeaderShard(cluster: RedisTestCluster, leader: string): Promise<{ nonce: number; node: RedisClusterTestNode }> {
  const { Cluster } = await import('ioredis');
  const client = new Cluster(cluster.urls.map((u) => ({ host: u.split(':')[0]!, port: Number(u.split(':')[1]) })));
  try {
    let best = { nonce: 0, version: -1 };
    for (let n = 0; n < 4; n++) {
      const value = await client.get(`roster/${KEY}/${ENV}/leader ${n}`);
      const parts = value?.split(' ');
      if (!parts || parts[3] !== leader) continue;
      const version = Number(parts[2]);
      if (version > best.version) best = { nonce: n, version };
    }
    return { nonce: best.nonce, node: await cluster.nodeFor(`roster/${KEY}/${ENV}/leader ${best.nonce}`) };
  } finally {
    client.disconnect();
  }
}

/** The running `roster node` processes of one test. */
class Group {
  readonly nodes: RosterNodeProcess[] = [];
  readonly killed = new Set<RosterNodeProcess>();
  readonly #ids = new Map<string, RosterNodeProcess>();
  constructor(
    private readonly url: string,
    private readonly I: number,
    private readonly T: number,
  ) {}

  start(id: string): RosterNodeProcess {
    const p = startRoster('node', '--json', '--store', this.url, '--group', KEY, '--env', ENV, '--id', id, '--interval', String(this.I), '--timeout', String(this.T));
    this.nodes.push(p);
    this.#ids.set(id, p);
    return p;
  }

  get live(): RosterNodeProcess[] {
    return this.nodes.filter((n) => n.alive && !this.killed.has(n));
  }

  /** The leader every live node agrees on, if any. */
  agreedLeader(): string | undefined {
    const ids = new Set(this.live.map((n) => n.leader?.id ?? null));
    const [id] = ids;
    return ids.size === 1 && typeof id === 'string' ? id : undefined;
  }

  agreedMembers(count: number): boolean {
    return this.agreedLeader() !== undefined && this.live.every((n) => n.members.length === count);
  }

  async waitAgreed(count: number, boundMs: number, what: string): Promise<number> {
    const at = await poll(() => this.agreedMembers(count), boundMs);
    if (at === undefined) throw new Error(`${what}: no agreement within ${boundMs} ms\n${this.nodes.map((n) => n.describe()).join('\n')}`);
    return at;
  }

  /** Watches for `ms` and sums the time the live nodes did not agree on one leader. */
  async watchLeaderless(ms: number): Promise<number> {
    let leaderless = 0;
    let last = performance.now();
    const end = last + ms;
    while (performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = performance.now();
      if (this.agreedLeader() === undefined) leaderless += now - last;
      last = now;
    }
    return Math.round(leaderless);
  }

  /** Starts `id` and measures until every live node lists it. */
  async join(id: string, boundMs: number): Promise<number | undefined> {
    const p = this.start(id);
    // Admission is measured from the node's first line: process start-up is not the protocol's.
    await poll(() => p.events.length > 0, 10_000);
    const t = await poll(() => this.agreedLeader() !== undefined && this.live.every((n) => n.members.includes(id)), boundMs);
    return t === undefined ? undefined : Math.round(t);
  }

  /** SIGKILLs the agreed leader and measures until the others agree on another one. */
  async failover(boundMs: number): Promise<number | undefined> {
    const old = this.agreedLeader() ?? (await poll(() => this.agreedLeader() !== undefined, boundMs), this.agreedLeader());
    const victim = old === undefined ? undefined : this.#ids.get(old);
    if (!old || !victim) return undefined;
    this.killed.add(victim);
    victim.signal('SIGKILL');
    const t = await poll(() => {
      const now = this.agreedLeader();
      return now !== undefined && now !== old;
    }, boundMs);
    return t === undefined ? undefined : Math.round(t);
  }
}

/** Polls every 20 ms; resolves with the time it took, or `undefined` after `boundMs`. */
function poll(predicate: () => boolean, boundMs: number): Promise<number | undefined> {
  return waitFor(predicate, { what: 'the condition', timeoutMs: boundMs, everyMs: 20 }).catch(() => undefined);
}

/** One row of the disruption table, in Markdown. */
export function formatRow(r: DisruptionReport): string {
  const ms = (v: number | undefined): string => (v === undefined ? 'never' : `${(v / 1000).toFixed(1)} s`);
  return `| ${r.key} | ${r.intervalMs}/${r.timeoutMs} | ${r.fault === 'kill' ? 'SIGKILL' : 'SIGSTOP'} | ${r.leaderKept ? 'kept' : 'changed'} (${r.leaderChanges.join(',')}) | ${ms(r.leaderlessMs)} | ${ms(r.joinMs)} | ${ms(r.failoverMs)} | ${ms(r.joinAfterMs)} | ${ms(r.failoverAfterMs)} | ${Math.max(...r.stderrLines)} | ${r.exited} |`;
}
