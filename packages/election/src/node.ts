import { type Member } from '@roster/follower';
import type { LeaderInfo, Role, RosterUpdate, WatchFunction } from './events.js';

/** The lifecycle of a node. */
export type NodeState = 'idle' | 'running' | 'stopping' | 'stopped';

/**
 * One member of a Roster cluster, as `createNode()` returns it: a follower that stands for
 * election when its leader goes still, and a leader that publishes the member list.
 */
export interface RosterNode extends AsyncDisposable {
  /** This node's id. */
  readonly id: string;
  /**
   * The node's role now: `leader` exactly while it may act as leader (as {@link isLeader}); a
   * leader whose lease lapsed is `candidate` until it is re-validated (see `Role`).
   */
  readonly role: Role;
  /** The node's lifecycle state. */
  readonly state: NodeState;
  /** The leadership this node follows or holds, or `undefined` while it knows of none. */
  readonly leader: LeaderInfo | undefined;
  /** The member list this node sees, sorted by id, with the Version it comes from. */
  readonly members: { readonly version: number; readonly list: readonly Member[] };
  /** The ids of the members this node sees, sorted. */
  readonly memberIds: string[];
  /**
   * While this node may act as leader (its role is `leader`), a signal that aborts (with a
   * `LeadershipLostError`) the moment it may no longer; `undefined` otherwise. Give it to the work
   * only a leader may do. A lapsed lease aborts it (the role becomes `candidate`); when the lease
   * is re-validated (the role `leader` again, reason `revalidated`) this is a fresh signal: start
   * the work again on that update.
   */
  readonly leadership: AbortSignal | undefined;
  /**
   * The latency sensor: moving averages of a leader-window read and of the PING → PONG
   * round trip (followers only); `undefined` until measured.
   */
  readonly latency: { readonly windowReadMs: number | undefined; readonly pongRoundTripMs: number | undefined };
  /**
   * At the leader, every follower's PING → PONG round trip in ms, as the follower measured it and
   * reported it in its last PING (the latency sensor, gathered where the group is seen
   * whole); an empty map on any other node. Members that never reported one are absent.
   */
  latencies(): ReadonlyMap<string, number>;
  /**
   * The leader-key nonce holding the best broadcast this node knows now: where the leader last
   * published (as this node last read it, or, at the leader, wrote it). It moves to the next nonce
   * when the key at the current one becomes unavailable (a dead Redis Cluster shard), while the
   * leadership stays the same; `undefined` before any broadcast was seen.
   */
  readonly broadcastNonce: number | undefined;
  /** Counters of what the node did: KV reads and writes by purpose, garbage seen, elections. */
  readonly stats: Readonly<Record<string, number>>;
  /**
   * True while this node leads and its lease holds: it published within the renew deadline; the
   * same as `role === 'leader'`. Checked against the clock at each call, so it turns false on time
   * even if the process was paused (the lapse is then sent to subscribers at once); it stays
   * false until the lapsed lease is re-validated (docs/protocol.md).
   */
  isLeader(): boolean;
  /** Installs a watch function called with every update; returns the unsubscribe function. */
  watch(fn: WatchFunction): () => void;
  /** Calls `fn` with every update of one type; returns the unsubscribe function. */
  on<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void;
  /** An async iterator over the updates from now on; ends when the node stops or `signal` aborts. */
  updates(options?: { signal?: AbortSignal }): AsyncIterableIterator<RosterUpdate>;
  /**
   * Starts the node as a follower (or observer). Resolves once the first read of the leader key is
   * done. Calling it again returns the same promise; after `stop()` it rejects with a `NodeStateError`.
   */
  start(): Promise<void>;
  /**
   * Stops gracefully: a leader publishes a goodbye so that followers elect at once; a follower
   * writes `LEAVE` so that the leader removes it at once. Idempotent, bounded by one operation timeout.
   */
  stop(): Promise<void>;
  /** Stops at once, without goodbye or leave: to the cluster this is a crash. Local leadership ends at once. */
  destroy(): void;
}
