/**
 * A group of `roster node --json` processes on a {@link LocalRedisCluster} with replicas, and what
 * their timestamped lines tell about a window of time: for issue 29's tests and measurements of
 * failovers and live resharding under a running group (cluster-topology.test.ts,
 * cluster-topology.measure.ts).
 *
 * Every line a node prints carries `ts` (`Date.now()` of that process, on this machine's one
 * clock), so the analysis is done on the lines themselves, not on when the test read them.
 */
import { Cluster } from 'ioredis';
import type { LeaderEvent, MembersEvent, RoleEvent } from '@roster/cli';
import { waitFor, type LocalRedisCluster, type LocalRedisShard } from '@roster/testing';
import { startRoster, type RosterNodeProcess } from './rosterNode.js';

/** The group and environment the nodes use. */
export const KEY = 'topology';
export const ENV = 'test';

/** The store key `name` of the group (`roster/topology/test/<name>`). */
export function groupKey(name: string): string {
  return `roster/${KEY}/${ENV}/${name}`;
}

/** A leader as a leader line names it. */
export interface LeaderId {
  readonly id: string;
  readonly era: number;
}

/** What a group's lines say of a window of time (see {@link TopologyGroup.analyse}). */
export interface WindowReport {
  /** Leader lines, summed over the nodes, naming another leader (or era) than the one before, or none. */
  readonly leaderChanges: number;
  /** The leaders (`id@era`) any node named in the window, the one before included. */
  readonly leaders: readonly string[];
  /** Total time during which two or more nodes' last role line said `leader`. */
  readonly dualLeaderMs: number;
  /**
   * From the window's start to the last moment the nodes did not all follow one leader (their
   * last leader lines differing, or naming none; a node with no leader line yet is not counted);
   * 0 when they always did.
   */
  readonly unsettledMs: number;
  /** Members removed from any node's list in the window. */
  readonly removed: readonly string[];
}

/** The running `roster node` processes of one test, by id. */
export class TopologyGroup {
  readonly nodes: RosterNodeProcess[] = [];
  readonly #byId = new Map<string, RosterNodeProcess>();
  /** When each process that exited did (`Date.now()`): from then on it is no leader and follows none. */
  readonly #exitedAt = new Map<RosterNodeProcess, number>();

  constructor(
    private readonly url: string,
    readonly intervalMs: number,
    readonly timeoutMs: number,
  ) {}

  /** Starts `roster node --json` with this group's store, key, env, interval and timeout. */
  start(id: string): RosterNodeProcess {
    // prettier-ignore
    const p = startRoster('node', '--json', '--store', this.url, '--group', KEY, '--env', ENV, '--id', id,
      '--interval', String(this.intervalMs), '--timeout', String(this.timeoutMs));
    this.nodes.push(p);
    this.#byId.set(id, p);
    void p.exited.then(() => this.#exitedAt.set(p, Date.now()));
    return p;
  }

  node(id: string): RosterNodeProcess {
    const p = this.#byId.get(id);
    if (!p) throw new Error(`no node ${id}`);
    return p;
  }

  /** The nodes still running. */
  get live(): RosterNodeProcess[] {
    return this.nodes.filter((n) => n.alive);
  }

  /** The leader every live node's last leader line names, when they agree and exactly it says `leader`. */
  agreedLeader(): LeaderId | undefined {
    const live = this.live;
    const named = new Set(live.map((n) => (n.leader ? `${n.leader.id}@${n.leader.era}` : 'none')));
    if (named.size !== 1) return undefined;
    const leader = live[0]?.leader;
    if (!leader) return undefined;
    const leaders = live.filter((n) => n.role === 'leader');
    if (leaders.length !== 1 || leaders[0] !== this.#byId.get(leader.id)) return undefined;
    return { id: leader.id, era: leader.era };
  }

  /** True when the live nodes agree on a leader and each lists exactly `ids`. */
  agreed(ids: readonly string[]): boolean {
    const want = [...ids].sort().join(' ');
    return this.agreedLeader() !== undefined && this.live.every((n) => [...n.members].sort().join(' ') === want);
  }

  /** Waits until {@link agreed}; rejects with every node's output after `boundMs`. */
  async waitAgreed(ids: readonly string[], boundMs: number, what: string): Promise<number> {
    return waitFor(() => this.agreed(ids), {
      what: () => `${what}: the nodes to agree on one leader and the members ${ids.join(' ')}\n${this.nodes.map((n) => n.describe()).join('\n')}`,
      timeoutMs: boundMs,
      everyMs: 20,
    });
  }

  /**
   * How long until every live node listed `id`, from `id`'s first line (process start-up is not
   * the protocol's), from the nodes' own timestamps; `undefined` when one never did.
   */
  joinMs(id: string): number | undefined {
    const joiner = this.node(id);
    const first = joiner.events[0]?.ts;
    if (first === undefined) return undefined;
    let last = first;
    for (const n of this.live) {
      const listed = n.events.find((e): e is MembersEvent => e.event === 'members' && e.ts >= first && e.members.includes(id));
      if (!listed) return undefined;
      last = Math.max(last, listed.ts);
    }
    return last - first;
  }

  /**
   * What the lines of `ids` (default: every node) say of the window `[from, to]` (`Date.now()`
   * times), against `before`, the leader agreed when it began.
   */
  analyse(before: LeaderId, from: number, to: number, ids?: readonly string[]): WindowReport {
    const nodes = ids ? ids.map((id) => this.node(id)) : this.nodes;
    const baseline = `${before.id}@${before.era}`;
    const leaders = new Set([baseline]);
    let leaderChanges = 0;
    const removed = new Set<string>();
    for (const n of nodes) {
      for (const e of n.events) {
        if (e.ts < from || e.ts > to) continue;
        if (e.event === 'leader') {
          const named = e.leader === null ? 'none' : `${e.leader}@${e.era}`;
          leaders.add(named);
          if (named !== baseline) leaderChanges++;
        } else if (e.event === 'members') {
          for (const id of e.removed) removed.add(id);
        }
      }
    }
    return {
      leaderChanges,
      leaders: [...leaders],
      dualLeaderMs: Math.round(dualLeaderMs(this.#timelines(nodes), from, to)),
      unsettledMs: Math.round(lastDisagreementMs(this.#timelines(nodes), from, to)),
      removed: [...removed],
    };
  }

  /**
   * Per node, its role and the leader it follows, changing at each role or leader line and at its
   * exit (no role, no leader), in time order.
   */
  #timelines(nodes: readonly RosterNodeProcess[]): Timeline[] {
    return nodes.map((n) => {
      const changes: Change[] = [];
      for (const e of n.events) {
        if (e.event === 'role') changes.push({ ts: e.ts, role: (e as RoleEvent).role });
        else if (e.event === 'leader') {
          const l = e as LeaderEvent;
          changes.push({ ts: e.ts, leader: l.leader === null ? 'none' : `${l.leader}@${l.era}` });
        }
      }
      const exit = this.#exitedAt.get(n);
      if (exit !== undefined) changes.push({ ts: exit, role: 'exited', leader: 'exited' });
      return changes;
    });
  }
}

/** One change of a node's state: its role, the leader it follows (`id@era`, `none`), or both at its exit. */
interface Change {
  readonly ts: number;
  readonly role?: string;
  readonly leader?: string;
}

/** A node's changes, in its own line order (and its exit last). */
type Timeline = readonly Change[];

/**
 * Replays every node's changes in time order over `[from, to]`: `visit(at, roles, leaders)` is
 * called at each change in the window and at its end, with each node's role and leader (`undefined`
 * until its first line says) as they were just before `at`, since the previous call (or `from`).
 */
function replay(timelines: readonly Timeline[], from: number, to: number, visit: (at: number, roles: (string | undefined)[], leaders: (string | undefined)[]) => void): void {
  const roles: (string | undefined)[] = timelines.map(() => undefined);
  const leaders: (string | undefined)[] = timelines.map(() => undefined);
  const apply = (i: number, c: Change): void => {
    if (c.role !== undefined) roles[i] = c.role;
    if (c.leader !== undefined) leaders[i] = c.leader;
  };
  const later: { i: number; c: Change }[] = [];
  for (const [i, timeline] of timelines.entries()) {
    for (const c of timeline) {
      if (c.ts <= from) apply(i, c);
      else if (c.ts <= to) later.push({ i, c });
    }
  }
  later.sort((a, b) => a.c.ts - b.c.ts);
  for (const { i, c } of later) {
    visit(c.ts, roles, leaders);
    apply(i, c);
  }
  visit(to, roles, leaders);
}

/** Total time within `[from, to]` during which two or more nodes' last role line said `leader`. */
function dualLeaderMs(timelines: readonly Timeline[], from: number, to: number): number {
  let total = 0;
  let at = from;
  replay(timelines, from, to, (now, roles) => {
    if (roles.filter((role) => role === 'leader').length >= 2) total += now - at;
    at = now;
  });
  return total;
}

/**
 * From `from` to the last moment in `[from, to]` the running nodes did not all follow one leader
 * (a node with no leader line yet, or exited, is not counted; one that names none is); 0 when
 * they always did.
 */
function lastDisagreementMs(timelines: readonly Timeline[], from: number, to: number): number {
  let restored = from;
  let disagreeing = false;
  let at = from; // the start of the interval `visit` reports on
  replay(timelines, from, to, (now, _roles, leaders) => {
    const named = new Set(leaders.filter((l): l is string => l !== undefined && l !== 'exited'));
    const agreeing = named.size <= 1 && !named.has('none');
    if (disagreeing && agreeing) restored = at;
    disagreeing = !agreeing;
    at = now;
  });
  return (disagreeing ? to : restored) - from;
}

/**
 * The nonce of the leader key that `leader` writes now (the one holding the highest Version of its
 * leadership, read from the store), its key and the master serving it.
 */
export async function leaderNonce(cluster: LocalRedisCluster, leader: string): Promise<{ nonce: number; key: string; master: LocalRedisShard }> {
  const client = new Cluster(cluster.servers.filter((s) => s.running).map(({ host, port }) => ({ host, port })));
  client.on('error', () => {});
  try {
    let best = { nonce: -1, version: -1 };
    for (let nonce = 0; nonce < 4; nonce++) {
      const parts = (await client.get(groupKey(`leader ${nonce}`)))?.split(' ');
      if (!parts || parts[3] !== leader) continue;
      const version = Number(parts[2]);
      if (version > best.version) best = { nonce, version };
    }
    if (best.nonce < 0) throw new Error(`no leader key names ${leader}`);
    const key = groupKey(`leader ${best.nonce}`);
    return { nonce: best.nonce, key, master: await cluster.shardFor(key) };
  } finally {
    client.disconnect();
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
