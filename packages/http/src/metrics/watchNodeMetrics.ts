import type { RosterNode } from '@roster/election';
import { realClock, type Clock, type Timer } from '@roster/kv-adapter';
import type { RosterMetrics } from './RosterMetrics.js';

/** The reasons a candidacy ends without leading. */
const CANDIDACY_LOST: ReadonlySet<string> = new Set(['better-leader-seen', 'claim-lost', 'claim-race-lost', 'claim-unconfirmed', 'leader-alive']);

/** The node's counter of values it could not parse (see `RosterNode.stats`). */
const GARBAGE = 'garbage';
/** The node's counter of a leader's compare-and-sets that met another value (see `RosterNode.stats`). */
const CONFLICTS = 'publish.conflict';

/** Options of {@link watchNodeMetrics}. */
export interface WatchNodeMetricsOptions {
  /** The clock of the polling timer: the node's. @defaultValue the real clock */
  readonly clock?: Clock;
}

/**
 * Feeds `metrics` from a node's public API: its settings first, then its role, leader and members
 * as they change (with the current ones at once), the outcome of each election it stands in, and,
 * every interval of the node (`node.settings.intervalMs`) on `clock`, the malformed values it
 * counted, its slow renewals and, at the leader, every member's reported PONG round trip. Returns the
 * function that stops it. The store's side (operations, errors, round trips) comes from an
 * `InstrumentedKV` around the node's store, given the same `metrics`; `observe()` wires both.
 *
 * @example
 * ```ts
 * const metrics = new PromRosterMetrics({ registry });
 * const store = new InstrumentedKV(await RedisKV.connect({ url }), { metrics });
 * const node = createNode({ store, group: 'billing', env: 'prod' });
 * const unwatch = watchNodeMetrics(node, metrics);
 * ```
 */
export function watchNodeMetrics(node: RosterNode, metrics: RosterMetrics, options: WatchNodeMetricsOptions = {}): () => void {
  const clock = options.clock ?? realClock;
  const { intervalMs } = node.settings;
  metrics.settings(node.settings);
  metrics.role(node.role);
  metrics.leader(node.leader);
  metrics.members(node.members.list.length, node.members.version);
  const unwatch = node.watch((update) => {
    switch (update.type) {
      case 'role':
        metrics.role(update.role);
        // A candidacy's end; not a lapsed lease (shown as candidate) re-validated or given up.
        if (update.reason === 'confirmed') metrics.election('won');
        else if (update.previous === 'candidate' && update.role === 'follower' && CANDIDACY_LOST.has(update.reason)) metrics.election('lost');
        return;
      case 'leader':
        metrics.leader(update.leader);
        return;
      case 'members':
        metrics.members(update.members.length, update.version);
        return;
      default:
        return;
    }
  });
  let garbage = 0;
  let conflicts = 0;
  let timer: Timer | undefined;
  const poll = (): void => {
    const stats = node.stats;
    const now = stats[GARBAGE] ?? 0;
    if (now > garbage) metrics.malformedValues(now - garbage);
    garbage = now;
    const conflicted = stats[CONFLICTS] ?? 0;
    if (conflicted > conflicts) metrics.slowRenewals(conflicted - conflicts);
    conflicts = conflicted;
    metrics.memberPongRoundTrips(node.pongRoundTrips());
    timer = clock.setTimer(poll, intervalMs);
  };
  poll();
  return () => {
    timer?.cancel();
    unwatch();
  };
}
