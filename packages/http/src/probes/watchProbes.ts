import type { RosterNode } from '@roster/election';
import { realClock, type Clock } from '@roster/kv-adapter';
import type { StoreHealth } from '../metrics/InstrumentedKV.js';
import { liveness, readiness, type ProbeInput, type ProbeResult } from './probes.js';

/** Liveness and readiness on demand: what {@link createProbeHandler} answers from. */
export interface Probes {
  /** `/healthz` now: are the node's loops running? */
  liveness(): ProbeResult;
  /** `/readyz` now: does the node reach the store, know a leader and belong to its list? */
  readiness(): ProbeResult;
}

/** A node's probes, as {@link watchProbes} returns them. */
export interface NodeProbes extends Probes, Disposable {
  /** What the probes look at now. */
  input(): ProbeInput;
  /** Stops watching the node (its role updates). Idempotent. */
  stop(): void;
}

/** Options of {@link watchProbes}. */
export interface WatchProbesOptions {
  /**
   * What the node's store operations say of the store: the `InstrumentedKV` the node was created
   * on (anything with its `health`). Readiness needs it (an operation succeeded within T), and so
   * does liveness' stall check (an operation started within max(T, 3I)).
   */
  readonly store: { readonly health: StoreHealth };
  /** The clock the store's health is recorded on (the `InstrumentedKV`'s). @defaultValue the real clock */
  readonly clock?: Clock;
}

/**
 * Watches a node for its probes: `/healthz` (liveness) and `/readyz` (readiness), as
 * {@link liveness} and {@link readiness} define them, from the node's public API (state, role,
 * leader, members, `isLeader()`, its interval and timeout from `node.settings`), the store's
 * health, and the node's role updates, from which it tracks since when a leader's lapsed lease
 * has not been re-validated (a liveness failure after T while the store answers). Call it before
 * `node.start()` so that no update is missed; before the start, the node is live and not ready.
 * `stop()` ends the watch. `observe()` wires it with the metrics and the handlers.
 *
 * @example
 * ```ts
 * const kv = new InstrumentedKV(await RedisKV.connect({ url }));
 * const node = createNode({ store, group: 'billing', env: 'prod' });
 * const probes = watchProbes(node, { store: kv });
 * await node.start();
 * probes.readiness(); // { ok: true, reason: 'ok' } once a leader lists this node
 * ```
 */
export function watchProbes(node: RosterNode, options: WatchProbesOptions): NodeProbes {
  const clock = options.clock ?? realClock;
  const { intervalMs, timeoutMs } = node.settings;
  const { store } = options;
  /** Since when this node, a leader whose lease lapsed (shown as `candidate`), re-validates it. */
  let lapsedSince: number | undefined;
  const unwatch = node.on('role', (update) => {
    lapsedSince = update.role === 'candidate' && update.previous === 'leader' ? clock.now() : undefined;
  });
  const input = (): ProbeInput => {
    // First: a lease found lapsed by this check is told (a role update) before the role is read.
    const isLeader = node.isLeader();
    return {
      state: node.state,
      role: node.role,
      isLeader,
      lapsedSince: node.role === 'candidate' ? lapsedSince : undefined,
      leader: node.leader?.id,
      listed: node.members.list.some((m) => m.id === node.id),
      store: store.health,
      now: clock.now(),
      timeoutMs,
      intervalMs,
    };
  };
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    unwatch();
  };
  return {
    input,
    liveness: () => liveness(input()),
    readiness: () => readiness(input()),
    stop,
    [Symbol.dispose]: stop,
  };
}
