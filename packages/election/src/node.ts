import { type Member } from '@roster/follower';
import type { LeaderInfo, Role, RosterUpdate, WatchFunction } from './events.js';
import type { NodeSettings } from './config.js';
import type { LeaderWorkFunction } from './LeaderWork.js';

/** The lifecycle of a node. */
export type NodeState = 'idle' | 'running' | 'stopping' | 'stopped';

/**
 * One member of a Roster group, as `createNode()` returns it: a follower that stands for
 * election when its leader goes still, and a leader that publishes the member list.
 */
export interface RosterNode extends AsyncDisposable {
  /** This node's id (the same as `settings.id`). */
  readonly id: string;
  /**
   * The identity and timing the node runs with, every default applied (see {@link NodeSettings}):
   * id, group, env, intervalMs, timeoutMs, renewDeadlineMs, operationTimeoutMs, … Frozen, fixed
   * for the node's life. Read it instead of passing the options again, e.g. to `@roster/http`.
   *
   * @example
   * ```ts
   * const node = createNode({ store, group: 'billing', env: 'prod', intervalMs: 500 });
   * node.settings.timeoutMs; // 2500: T = 5I by default
   * ```
   */
  readonly settings: NodeSettings;
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
   * The latency sensor, moving averages in ms (`undefined` until measured): `windowReadMs`, of a
   * leader-window read (one or two store round trips); `pongRoundTripMs`, of the PONG round trip
   * (followers only): from writing a PING to finding the leader's PONG in its place. A follower
   * PINGs once per interval and finds the answer at its next PING, so the PONG round trip is about
   * I when every PING is answered and a multiple of I when some are not.
   */
  readonly latency: { readonly windowReadMs: number | undefined; readonly pongRoundTripMs: number | undefined };
  /**
   * At the leader, every follower's PONG round trip (`pongRoundTripMs`) in ms, as the follower
   * measured it and reported it in its last PING (the latency sensor, gathered where the group is
   * seen whole), by member id; an empty map on any other node. Members that never reported one
   * are absent.
   */
  pongRoundTrips(): ReadonlyMap<string, number>;
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
  /** Calls `fn` with every update of one type; returns the unsubscribe function (or use {@link off}). */
  on<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void;
  /**
   * Calls `fn` with the next update of one type only, as `EventEmitter.once` does; returns the
   * node. With {@link off} and {@link removeListener}, this is what `once` and `on` of
   * `node:events` need, so `await once(node, 'leader')` works (TypeScript's types of `events.once`
   * take an `EventEmitter`: cast the node).
   *
   * @example
   * ```ts
   * import { once } from 'node:events';
   * const [update] = await once(node as never, 'leader'); // the next LeaderUpdate
   * ```
   */
  once<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): this;
  /** Removes the listener `fn` of `type` added last by {@link on} or {@link once}, as `EventEmitter.off` does; returns the node. */
  off<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): this;
  /** The same as {@link off}. */
  removeListener<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): this;
  /**
   * An async iterator over the updates from now on. It ends (`done: true`, the `for await` loop
   * exits normally) after the `stopped` update, or as soon as `signal` aborts: the updates not
   * read yet are then dropped, and it does not reject. Leaving the loop (`break`, `return()`)
   * detaches it as well.
   *
   * @example
   * ```ts
   * for await (const update of node.updates({ signal: AbortSignal.timeout(60_000) })) {
   *   if (update.type === 'leader') console.log('leader is', update.leader?.id);
   * }
   * // here after a minute, or once the node stopped
   * ```
   */
  updates(options?: { signal?: AbortSignal }): AsyncIterableIterator<RosterUpdate>;
  /**
   * Starts the node as a follower (or observer). Resolves once the first read of the leader key is
   * done. Calling it again returns the same promise; after `stop()` it rejects with a `NodeStateError`.
   */
  start(): Promise<void>;
  /**
   * Runs `fn({ signal, token, era })` each time this node starts leading: when it is elected, and
   * again when a lapsed lease is re-validated (the `role` update to `leader`, reason
   * `revalidated`); at once when it leads now. The argument is the `Leadership` the run
   * belongs to: `token` is that leadership's fencing token, the one of the `leader` update that
   * told of it (a re-validated lease keeps it; a later leadership has a greater one), so the work
   * never needs to read `node.leader`, which may already tell of another leadership. `signal`
   * aborts (with a `LeadershipLostError`) the moment the node may no longer act as leader:
   * dethroned, its lease lapsed (shown as `candidate`), `resign()`, `stop()`, `destroy()`; and
   * (with an `AbortError`) when the returned function unregisters `fn`.
   *
   * `fn` may return a promise; the run has settled when it resolves or rejects. `stop()` and
   * `resign()` wait for the runs to settle, up to `leaderWorkTimeoutMs` (default T), before their
   * goodbye, so the next leader, elected on that goodbye, does not overlap this work. Runs of one
   * `fn` never overlap: a leadership that starts while the previous run still winds down starts
   * the next once it has settled. A throw or rejection is logged (once per change of state),
   * never left unhandled; one that follows the signal's abort is the run's normal end. Before
   * `start()` is fine; after `stop()` it never runs.
   *
   * @returns the function that unregisters `fn` (and aborts its run in progress).
   *
   * @example
   * ```ts
   * node.whileLeader(async ({ signal, token }) => {
   *   while (!signal.aborted) {
   *     await runScheduledJobs({ signal, fence: token });
   *     await setTimeout(1000, undefined, { signal }).catch(() => undefined);
   *   }
   * });
   * ```
   */
  whileLeader(fn: LeaderWorkFunction): () => void;
  /**
   * Gives up leadership now and stays a member: users are told at once (`role` update to
   * `follower`, reason `resigned`; the leadership signal aborts), the work of {@link whileLeader}
   * winds down (bounded by `leaderWorkTimeoutMs`), then a goodbye makes the followers elect at once.
   * This node does not stand for T from then, so that another one takes over (in about an
   * interval); it follows the new leader and rejoins its list. Alone in its group, it leads again
   * after T. Resolves once the goodbye is written (or failed, logged); at once, doing nothing, when
   * this node does not lead or is not running. A leader whose lease lapsed (shown as `candidate`)
   * resigns too. Never rejects. `stop()` during a resignation waits for its goodbye; `destroy()`
   * cuts it short (no goodbye).
   */
  resign(): Promise<void>;
  /**
   * Stops gracefully: a leader stops leading (`role` update to `follower`, reason `stopped`; the
   * leadership signal aborts), waits for the work of {@link whileLeader} to settle (up to
   * `leaderWorkTimeoutMs`), then publishes a goodbye so that followers elect at once; a follower
   * writes `LEAVE` so that the leader removes it at once. Idempotent, bounded by the leader work's
   * timeout plus one operation timeout.
   */
  stop(): Promise<void>;
  /** Stops at once, without goodbye or leave: to the group this is a crash. Local leadership (and its work's signal) ends at once. */
  destroy(): void;
}
