import type { Role } from '@roster/election';
import type { NodeEvent } from '@roster/cli';

/** Where a demo node is in its life, as the main process knows it. */
export type NodeLife = 'starting' | 'running' | 'stopping' | 'stopped' | 'killed' | 'crashed';

/** What the demo knows of one node, from its reports. */
export interface NodeView {
  readonly id: string;
  pid: number | undefined;
  life: NodeLife;
  role: Role | undefined;
  /** The leader this node follows (or is). */
  leader: { readonly id: string; readonly era: number; readonly token: bigint } | undefined;
  /** The member list this node sees. */
  members: readonly string[];
  /** The broadcast Version this node last saw. */
  version: number;
  /** The node's PONG round trip in ms (from its PING to finding the PONG, about I), as it last reported it. */
  pongRoundTripMs: number | undefined;
  /** The node's store round trip in ms (a moving average of its store operations), as it last reported it. */
  storeRoundTripMs: number | undefined;
  /** The leader-key nonce where this node last found (or, as leader, wrote) the leader's broadcast. */
  nonce: number | undefined;
}

/** One leader crash and what followed it. */
export interface Failover {
  /** The leader that was killed. */
  readonly victim: string;
  /** When it was killed (the demo's clock, ms). */
  readonly killedAt: number;
  /** The fencing token of the killed leadership. */
  readonly oldToken: bigint | undefined;
  /** The nodes alive at the kill, which must all follow the new leader. */
  readonly survivors: readonly string[];
  /** The new leader, once every survivor follows it. */
  newLeader?: { readonly id: string; readonly era: number; readonly token: bigint };
  /** Kill to the last survivor following the new leader, in ms. */
  durationMs?: number;
}

/**
 * A time when two or more alive nodes reported `leader` at once, as the demo received their
 * reports (their events and their once-an-interval ticks).
 */
export interface LeaderOverlap {
  /** The nodes that reported leader, every one seen during the overlap. */
  readonly ids: string[];
  readonly from: number;
  /** When it ended; `undefined` while it lasts. */
  to: number | undefined;
}

/** What a node reports once an interval (see the worker's `tick` message). */
export interface TickReport {
  readonly id: string;
  readonly role: Role;
  readonly version: number;
  readonly pongRoundTripMs?: number;
  readonly nonce?: number;
  readonly storeRoundTripMs?: number;
}

/** One change of the Redis Cluster's topology made by `--cluster`, and what the nodes did through it. */
export interface TopologyChange {
  /** `graceful failover`, `resharding`, `master kill`. */
  readonly kind: 'graceful failover' | 'resharding' | 'master kill';
  /** What was done, in a phrase: `127.0.0.1:7001 → 127.0.0.1:7004`, `slot 1234 from … to …`. */
  detail: string;
  /** When it started (the demo's clock, ms). */
  readonly at: number;
  /** The leader, its era and fencing token, when the change started. */
  readonly before: { readonly id: string; readonly era: number; readonly token: bigint };
  /** The leader every alive node follows once the change was watched; `null`: they did not agree. */
  after?: { readonly id: string; readonly era: number; readonly token: bigint } | null;
  /** Elections during the change and the watch after it. */
  elections?: number;
  /** Times two nodes reported leader at once during the change and the watch. */
  overlaps?: readonly LeaderOverlap[];
  /** When the change itself was over (the topology settled, or the change failed). */
  settledAt?: number;
  /** When the watch after it ended. */
  doneAt?: number;
  /** True when the run ended before the watch had its full length. */
  cutShort?: boolean;
}

const ALIVE: ReadonlySet<NodeLife> = new Set(['starting', 'running']);

/**
 * The demo's model of the cluster: each node's reported view, the elections seen, the failovers
 * measured from a kill to every survivor following a new leader, every time two nodes reported
 * leader at once, and the Redis Cluster's topology changes (`--cluster`). Pure bookkeeping, on the
 * timestamps it is given.
 */
export class ClusterView {
  readonly #nodes = new Map<string, NodeView>();
  readonly failovers: Failover[] = [];
  /** Every time two or more alive nodes reported leader at once, oldest first; the last may last still. */
  readonly overlaps: LeaderOverlap[] = [];
  /** The Redis Cluster's topology changes, oldest first (`--cluster`). */
  readonly topology: TopologyChange[] = [];
  /** How many times a node became leader. */
  elections = 0;
  #lastAt = 0;

  /** Every node ever started, in start order. */
  get nodes(): readonly NodeView[] {
    return [...this.#nodes.values()];
  }

  /** The nodes starting or running. */
  get alive(): NodeView[] {
    return this.nodes.filter((n) => ALIVE.has(n.life));
  }

  node(id: string): NodeView | undefined {
    return this.#nodes.get(id);
  }

  /** A node is being started. */
  add(id: string): NodeView {
    const view: NodeView = { id, pid: undefined, life: 'starting', role: undefined, leader: undefined, members: [], version: 0, pongRoundTripMs: undefined, storeRoundTripMs: undefined, nonce: undefined };
    this.#nodes.set(id, view);
    return view;
  }

  /** The node's process is up: `pid` is what to kill. */
  hello(id: string, pid: number): void {
    const view = this.#nodes.get(id);
    if (view) view.pid = pid;
  }

  /** The node's role, Version, PONG round trip, broadcast nonce and store round trip at `at` (sent every interval). */
  tick(report: TickReport, at: number): void {
    const view = this.#nodes.get(report.id);
    if (!view || !ALIVE.has(view.life)) return;
    view.role = report.role;
    view.version = Math.max(view.version, report.version);
    view.pongRoundTripMs = report.pongRoundTripMs;
    view.storeRoundTripMs = report.storeRoundTripMs;
    if (report.nonce !== undefined) view.nonce = report.nonce;
    this.#checkLeaders(at);
  }

  /**
   * Applies a node's event. Returns the failover that this event completed, if any.
   */
  apply(event: NodeEvent, at: number): Failover | undefined {
    const view = this.#nodes.get(event.id);
    if (!view || !ALIVE.has(view.life)) return undefined;
    switch (event.event) {
      case 'role':
        view.life = 'running';
        view.role = event.role;
        if (event.role === 'leader' && event.reason === 'confirmed') this.elections++;
        break;
      case 'leader':
        view.life = 'running';
        view.leader = event.leader === null ? undefined : { id: event.leader, era: event.era ?? 0, token: BigInt(event.token ?? 0) };
        break;
      case 'members':
        view.members = event.members;
        view.version = Math.max(view.version, event.version);
        break;
      case 'stopped':
        view.life = 'stopped';
        break;
    }
    this.#checkLeaders(at);
    return this.#completeFailover(at);
  }

  /** The node is being stopped gracefully. */
  stopping(id: string): void {
    const view = this.#nodes.get(id);
    if (view && ALIVE.has(view.life)) view.life = 'stopping';
    this.#checkLeaders(this.#lastAt);
  }

  /** The node's task ended: gracefully (`stopped`) or not (`crashed`, unless it was killed). */
  ended(id: string, how: 'stopped' | 'crashed'): void {
    const view = this.#nodes.get(id);
    if (view && view.life !== 'killed') view.life = how;
    this.#checkLeaders(this.#lastAt);
  }

  /**
   * The node was killed at `at`. When it was the leader, starts measuring a failover and returns it.
   */
  killed(id: string, at: number): Failover | undefined {
    const view = this.#nodes.get(id);
    if (!view) return undefined;
    const wasLeader = view.role === 'leader';
    view.life = 'killed';
    this.#checkLeaders(at);
    if (!wasLeader) return undefined;
    const failover: Failover = {
      victim: id,
      killedAt: at,
      oldToken: view.leader?.id === id ? view.leader.token : undefined,
      survivors: this.alive.map((n) => n.id),
    };
    this.failovers.push(failover);
    return failover;
  }

  /** The failover still being measured, if any. */
  get pending(): Failover | undefined {
    return this.failovers.find((f) => f.durationMs === undefined);
  }

  /** The alive node that calls itself leader, if exactly one does. */
  get leaderNode(): NodeView | undefined {
    const leaders = this.alive.filter((n) => n.role === 'leader');
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  /**
   * True when the cluster is at rest: no failover being measured, one alive leader, every other
   * alive node a follower, and every alive node running, following the leader and seeing every
   * alive node as a member.
   */
  get settled(): boolean {
    const leader = this.leaderNode;
    if (!leader || this.pending) return false;
    const ids = this.alive.map((n) => n.id).sort();
    return this.alive.every(
      (n) =>
        n.life === 'running' &&
        (n === leader || n.role === 'follower') &&
        n.leader?.id === leader.id && n.members.length === ids.length && n.members.every((m, i) => m === ids[i]),
    );
  }

  /** The alive nodes that report leader now, in start order. */
  get leaders(): NodeView[] {
    return this.alive.filter((n) => n.role === 'leader');
  }

  /** The leader, its era and token, when exactly one alive node leads and knows its leadership. */
  get leadership(): { readonly id: string; readonly era: number; readonly token: bigint } | undefined {
    const leader = this.leaderNode;
    return leader && leader.leader?.id === leader.id ? leader.leader : undefined;
  }

  /** The overlaps that touched `[from, to]` (an overlap still open counts as lasting until `to`). */
  overlapsBetween(from: number, to: number): LeaderOverlap[] {
    return this.overlaps.filter((o) => o.from <= to && (o.to ?? to) >= from);
  }

  /** How long two nodes reported leader at once in all, up to `at` for an overlap still open. */
  overlapMs(at: number = this.#lastAt): number {
    return this.overlaps.reduce((sum, o) => sum + ((o.to ?? at) - o.from), 0);
  }

  /** Opens an overlap when two or more alive nodes report leader, closes it when at most one does. */
  #checkLeaders(at: number): void {
    this.#lastAt = Math.max(this.#lastAt, at);
    const leaders = this.leaders.map((n) => n.id);
    const open = this.overlaps.at(-1)?.to === undefined ? this.overlaps.at(-1) : undefined;
    if (leaders.length >= 2) {
      if (!open) this.overlaps.push({ ids: leaders, from: at, to: undefined });
      else for (const id of leaders) if (!open.ids.includes(id)) open.ids.push(id);
    } else if (open) {
      open.to = at;
    }
  }

  #completeFailover(at: number): Failover | undefined {
    const f = this.pending;
    if (!f) return undefined;
    const survivors = f.survivors.map((id) => this.#nodes.get(id)!).filter((n) => ALIVE.has(n.life));
    const first = survivors[0]?.leader;
    if (!first || first.id === f.victim || (f.oldToken !== undefined && first.token <= f.oldToken)) return undefined;
    if (!survivors.every((n) => n.leader?.id === first.id && n.leader.token === first.token)) return undefined;
    f.newLeader = first;
    f.durationMs = at - f.killedAt;
    return f;
  }
}

/** The median of `values` (the mean of the middle two for an even count); `undefined` when empty. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
