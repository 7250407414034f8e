import type { NodeSettings, Role } from '@roster/election';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ElectionOutcome, KeyKind, RosterMetrics, StoreErrorKind, StoreOperation } from './RosterMetrics.js';

const ROLES: readonly Role[] = ['follower', 'candidate', 'leader', 'observer'];

/** Store operations take a few hundred microseconds on a local Redis, up to the command timeout. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** A PONG round trip spans up to two intervals (the follower's and the leader's loops). */
const PONG_ROUND_TRIP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The most members whose PONG round trip the leader exports as a labelled series (bounded cardinality). */
export const MAX_MEMBER_SERIES = 100;

/** Options of {@link PromRosterMetrics}. */
export interface PromRosterMetricsOptions {
  /**
   * The registry to register the metrics in: the service's own `Registry`, or prom-client's global
   * `register`. One `PromRosterMetrics` per registry (prom-client refuses a second metric of the
   * same name). @defaultValue a new `Registry` of its own (see {@link PromRosterMetrics.registry}):
   * nothing global, so several nodes in one process never collide
   */
  readonly registry?: Registry;
  /**
   * Labels for every metric, e.g. `{ node: 'a' }`. They become the registry's default labels, so
   * on a registry shared with the service they label the service's metrics too: give them only
   * with a registry of Roster's own. @defaultValue none
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * {@link RosterMetrics} as Prometheus metrics through prom-client, every name prefixed `roster_`
 * (the list is in the package README), and beside them client-go's leader-election series,
 * `leader_election_master_status{name}` and `leader_election_slowpath_total{name}` (the same
 * names, types and label as Kubernetes components export, `name` being the node's group),
 * so that dashboards and alerts written for those work unchanged; they appear once the node's
 * settings are known ({@link settings}). Register them in a service's own registry with
 * `new PromRosterMetrics({ registry })`, or in prom-client's global one with
 * `{ registry: register }`; without `registry`, they get a registry of their own, `.registry`.
 * Two instances cannot share one registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * const registry = new Registry(); // the service's, with its own metrics
 * const metrics = new PromRosterMetrics({ registry });
 * metrics.role('leader');
 * console.log(await registry.metrics()); // … roster_is_leader 1 …
 * ```
 */
export class PromRosterMetrics implements RosterMetrics {
  /** The registry the metrics are in: serve it with `createMetricsHandler(metrics.registry)`. */
  readonly registry: Registry;
  readonly #role: Gauge;
  readonly #isLeader: Gauge;
  readonly #era: Gauge;
  readonly #token: Gauge;
  readonly #members: Gauge;
  readonly #version: Gauge;
  readonly #leaderChanges: Counter;
  readonly #elections: Counter<'outcome'>;
  readonly #operations: Counter<'operation' | 'outcome'>;
  readonly #errors: Counter<'kind'>;
  readonly #duration: Histogram<'operation'>;
  readonly #pongRoundTrip: Histogram;
  readonly #nonceMoves: Counter<'key'>;
  readonly #memberPongRoundTrip: Gauge<'member'>;
  readonly #memberPongRoundTripOmitted: Gauge;
  readonly #masterStatus: Gauge<'name'>;
  readonly #slowpath: Counter<'name'>;
  #lastLeader: { era: number; token: bigint } | undefined;
  /** client-go's `name` label: the node's group, once the settings are known. */
  #name: string | undefined;
  #leading = false;
  /** Slow renewals told of before the settings (none, when fed by `watchNodeMetrics`). */
  #slowBeforeName = 0;

  constructor(options: PromRosterMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const registers = [this.registry];
    if (options.labels) this.registry.setDefaultLabels({ ...options.labels });
    this.#role = new Gauge({ name: 'roster_role', help: 'The node’s role: 1 for the role it has, 0 for the others.', labelNames: ['role'], registers });
    this.#isLeader = new Gauge({ name: 'roster_is_leader', help: '1 while this node leads, else 0.', registers });
    this.#era = new Gauge({ name: 'roster_era', help: 'The era of the leadership this node follows or holds (0: none known).', registers });
    this.#token = new Gauge({
      name: 'roster_fencing_token',
      help: 'The fencing token of the leadership this node follows or holds (0: none known; exact below 2^53).',
      registers,
    });
    this.#members = new Gauge({ name: 'roster_members', help: 'How many members this node sees.', registers });
    this.#version = new Gauge({ name: 'roster_membership_version', help: 'The broadcast Version of the member list this node sees.', registers });
    this.#leaderChanges = new Counter({ name: 'roster_leader_changes_total', help: 'How many times this node saw a new leadership.', registers });
    this.#elections = new Counter({
      name: 'roster_elections_total',
      help: 'Elections this node stood in, by outcome (won, lost).',
      labelNames: ['outcome'],
      registers,
    });
    this.#operations = new Counter({
      name: 'roster_store_operations_total',
      help: 'Store operations, by operation and outcome (ok, error).',
      labelNames: ['operation', 'outcome'],
      registers,
    });
    this.#errors = new Counter({
      name: 'roster_store_errors_total',
      help: 'Store errors, by kind (key_unavailable, store_unavailable, timeout, malformed_value, other).',
      labelNames: ['kind'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'roster_store_operation_duration_seconds',
      help: 'How long store operations took, by operation.',
      labelNames: ['operation'],
      buckets: STORE_BUCKETS,
      registers,
    });
    this.#pongRoundTrip = new Histogram({
      name: 'roster_pong_round_trip_seconds',
      help: 'This follower’s PONG round trips (a PING written → its PONG found) through the store and the leader.',
      buckets: PONG_ROUND_TRIP_BUCKETS,
      registers,
    });
    this.#nonceMoves = new Counter({
      name: 'roster_nonce_moves_total',
      help: 'Writes of a compound key at another nonce than the last (the key had been unavailable), by key kind (leader, join, era, id, other).',
      labelNames: ['key'],
      registers,
    });
    this.#memberPongRoundTrip = new Gauge({
      name: 'roster_member_pong_round_trip_seconds',
      help: `At the leader: each follower's last reported PONG round trip, by member id (the first ${MAX_MEMBER_SERIES} ids in order; see roster_member_pong_round_trip_omitted).`,
      labelNames: ['member'],
      registers,
    });
    this.#memberPongRoundTripOmitted = new Gauge({
      name: 'roster_member_pong_round_trip_omitted',
      help: `At the leader: members whose PONG round trip is not exported as a series (beyond the first ${MAX_MEMBER_SERIES}).`,
      registers,
    });
    // client-go's leader-election metrics (k8s.io/component-base/metrics/prometheus/clientgo/leaderelection):
    // the same names, types and label, so that what was written for Kubernetes components reads them.
    this.#masterStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'client-go’s leader gauge: 1 while this node leads the group `name`, 0 while it does not.',
      labelNames: ['name'],
      registers,
    });
    this.#slowpath = new Counter({
      name: 'leader_election_slowpath_total',
      help: 'client-go’s slow-path counter: renewals of the group `name` that met another write and had to read the leader key whole.',
      labelNames: ['name'],
      registers,
    });
    // Every series exists from the start, so that rate() and absent() behave before the first event.
    for (const role of ROLES) this.#role.set({ role }, 0);
    for (const outcome of ['won', 'lost'] satisfies ElectionOutcome[]) this.#elections.inc({ outcome }, 0);
    for (const kind of ['key_unavailable', 'store_unavailable', 'timeout', 'malformed_value', 'other'] satisfies StoreErrorKind[]) this.#errors.inc({ kind }, 0);
    for (const key of ['leader', 'join', 'era', 'id', 'other'] satisfies KeyKind[]) this.#nonceMoves.inc({ key }, 0);
    this.#isLeader.set(0);
  }

  /** Labels client-go's series with the node's group (`name` = `settings.group`) and starts them. */
  settings(settings: NodeSettings): void {
    const previous = this.#name;
    if (previous === settings.group) return;
    if (previous !== undefined) {
      this.#masterStatus.remove({ name: previous });
      this.#slowpath.remove({ name: previous });
    }
    const name = settings.group;
    this.#name = name;
    this.#masterStatus.set({ name }, this.#leading ? 1 : 0);
    this.#slowpath.inc({ name }, this.#slowBeforeName);
    this.#slowBeforeName = 0;
  }

  role(role: Role): void {
    for (const r of ROLES) this.#role.set({ role: r }, r === role ? 1 : 0);
    this.#leading = role === 'leader';
    this.#isLeader.set(this.#leading ? 1 : 0);
    if (this.#name !== undefined) this.#masterStatus.set({ name: this.#name }, this.#leading ? 1 : 0);
  }

  leader(leader: { readonly era: number; readonly token: bigint } | undefined): void {
    this.#era.set(leader?.era ?? 0);
    this.#token.set(Number(leader?.token ?? 0n));
    const last = this.#lastLeader;
    if (leader && (last === undefined || last.era !== leader.era || last.token !== leader.token)) this.#leaderChanges.inc();
    if (leader) this.#lastLeader = { era: leader.era, token: leader.token };
  }

  members(count: number, version: number): void {
    this.#members.set(count);
    this.#version.set(version);
  }

  election(outcome: ElectionOutcome): void {
    this.#elections.inc({ outcome });
  }

  storeOperation(operation: StoreOperation, seconds: number, error: StoreErrorKind | undefined): void {
    this.#operations.inc({ operation, outcome: error === undefined ? 'ok' : 'error' });
    if (error !== undefined) this.#errors.inc({ kind: error });
    this.#duration.observe({ operation }, seconds);
  }

  malformedValues(count: number): void {
    if (count > 0) this.#errors.inc({ kind: 'malformed_value' }, count);
  }

  pongRoundTrip(seconds: number): void {
    this.#pongRoundTrip.observe(seconds);
  }

  nonceMove(kind: KeyKind): void {
    this.#nonceMoves.inc({ key: kind });
  }

  slowRenewals(count: number): void {
    if (!(count > 0)) return;
    if (this.#name === undefined) this.#slowBeforeName += count;
    else this.#slowpath.inc({ name: this.#name }, count);
  }

  memberPongRoundTrips(pongRoundTrips: ReadonlyMap<string, number>): void {
    // Bounded cardinality: at most MAX_MEMBER_SERIES member labels, the rest only counted.
    const ids = [...pongRoundTrips.keys()].sort();
    this.#memberPongRoundTrip.reset();
    for (const id of ids.slice(0, MAX_MEMBER_SERIES)) this.#memberPongRoundTrip.set({ member: id }, pongRoundTrips.get(id)! / 1000);
    this.#memberPongRoundTripOmitted.set(Math.max(0, ids.length - MAX_MEMBER_SERIES));
  }
}
