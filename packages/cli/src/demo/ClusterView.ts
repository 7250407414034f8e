import type { Role } from '@roster/election';
import type { NodeEvent } from '../node/nodeEvents.js';

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
  /** The node's PONG interval in ms (from its PING to finding the PONG, about I), as it last reported it. */
  latencyMs: number | undefined;
  /** The node's store round trip in ms (a moving average of its store operations), as it last reported it. */
  storeMs: number | undefined;
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

const ALIVE: ReadonlySet<NodeLife> = new Set(['starting', 'running']);

/**
 * The demo's model of the cluster: each node's reported view, the elections seen, and the
 * failovers measured from a kill to every survivor following a new leader. Pure bookkeeping, on
 * the timestamps it is given.
 */
export class ClusterView {
  readonly #nodes = new Map<string, NodeView>();
  readonly failovers: Failover[] = [];
  /** How many times a node became leader. */
  elections = 0;

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
    const view: NodeView = { id, pid: undefined, life: 'starting', role: undefined, leader: undefined, members: [], version: 0, latencyMs: undefined, storeMs: undefined, nonce: undefined };
    this.#nodes.set(id, view);
    return view;
  }

  /** The node's process is up: `pid` is what to kill. */
  hello(id: string, pid: number): void {
    const view = this.#nodes.get(id);
    if (view) view.pid = pid;
  }

  /** The node's role, Version, PONG interval, broadcast nonce and store round trip now (sent every interval). */
  tick(id: string, role: Role, version: number, latencyMs?: number, nonce?: number, storeMs?: number): void {
    const view = this.#nodes.get(id);
    if (!view || !ALIVE.has(view.life)) return;
    view.role = role;
    view.version = Math.max(view.version, version);
    view.latencyMs = latencyMs;
    view.storeMs = storeMs;
    if (nonce !== undefined) view.nonce = nonce;
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
    return this.#completeFailover(at);
  }

  /** The node is being stopped gracefully. */
  stopping(id: string): void {
    const view = this.#nodes.get(id);
    if (view && ALIVE.has(view.life)) view.life = 'stopping';
  }

  /** The node's task ended: gracefully (`stopped`) or not (`crashed`, unless it was killed). */
  ended(id: string, how: 'stopped' | 'crashed'): void {
    const view = this.#nodes.get(id);
    if (view && view.life !== 'killed') view.life = how;
  }

  /**
   * The node was killed at `at`. When it was the leader, starts measuring a failover and returns it.
   */
  killed(id: string, at: number): Failover | undefined {
    const view = this.#nodes.get(id);
    if (!view) return undefined;
    const wasLeader = view.role === 'leader';
    view.life = 'killed';
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
