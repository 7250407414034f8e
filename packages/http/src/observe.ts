import type { RosterNode } from '@roster/election';
import { ConfigError, realClock, type Clock, type KV, type Logger } from '@roster/kv-adapter';
import type { Registry } from 'prom-client';
import { createMetricsHandler } from './handlers/createMetricsHandler.js';
import { createProbeHandler } from './handlers/createProbeHandler.js';
import type { HttpHandler } from './handlers/HttpHandler.js';
import { InstrumentedKV, setDeadline, type StoreHealth } from './metrics/InstrumentedKV.js';
import { PromRosterMetrics } from './metrics/PromRosterMetrics.js';
import { watchNodeMetrics } from './metrics/watchNodeMetrics.js';
import { liveness, readiness, type ProbeInput } from './probes/probes.js';
import { watchProbes, type NodeProbes, type Probes } from './probes/watchProbes.js';

/** Options of {@link observe}. */
export interface ObserveOptions {
  /**
   * The prom-client registry the metrics go in: the one the service's `/metrics` serves (its own
   * `Registry`, or prom-client's global `register`). One observation per registry.
   * @defaultValue a new `Registry` of its own ({@link Observation.registry})
   */
  readonly registry?: Registry;
  /** The clock the node runs on (a test's virtual clock). @defaultValue the real clock */
  readonly clock?: Clock;
  /** Where `/metrics` reports a failed collection (once, until it works again). @defaultValue silent */
  readonly logger?: Logger;
}

/**
 * The handlers of an {@link Observation}, by the path they are usually mounted at (a type, not an
 * interface, so that it also reads as a `Record<string, HttpHandler>` to route by path).
 */
export type ObservedRoutes = {
  /** Prometheus text of the registry (`createMetricsHandler`). */
  readonly '/metrics': HttpHandler;
  /** Liveness: 200 or 503 with a JSON reason (`createProbeHandler(…, 'liveness')`). */
  readonly '/healthz': HttpHandler;
  /** Readiness: 200 or 503 with a JSON reason (`createProbeHandler(…, 'readiness')`). */
  readonly '/readyz': HttpHandler;
};

/** A node's metrics, probes and handlers, as {@link observe} returns them. */
export interface Observation extends Disposable {
  /** The registry the metrics are in (the one given, or one of its own). */
  readonly registry: Registry;
  /** The `roster_` metrics and client-go's leader-election series, in {@link registry}. */
  readonly metrics: PromRosterMetrics;
  /**
   * The `/metrics`, `/healthz` and `/readyz` handlers, usable at once: before {@link attach}, the
   * probes answer as for a program still connecting to its store (live, not ready).
   */
  readonly routes: ObservedRoutes;
  /** The probes the routes answer from, and what they look at ({@link ProbeInput}). */
  readonly probes: Probes & { input(): ProbeInput };
  /**
   * Wraps the store the node is to run on: create the node on what it returns. Every operation is
   * then counted and timed in {@link metrics}, and the store's health feeds the probes. Once.
   *
   * @throws `ConfigError` (field `kv`) on a second call.
   */
  instrument(store: KV): InstrumentedKV;
  /**
   * Observes `node`, created on the store {@link instrument} returned: its updates feed the
   * metrics, its state the probes, and its `settings` (interval, timeout, operation timeout,
   * group) set everything that depends on them. Call it before `node.start()` so that no
   * update is missed. Once.
   *
   * @throws `ConfigError` (field `node`) before {@link instrument}, or on a second call.
   */
  attach(node: RosterNode): void;
  /** Stops observing the node (its updates, the metrics' poll). Idempotent; the store stays open. */
  close(): void;
}

/** The store's health before any store is instrumented. */
const NO_STORE: StoreHealth = { lastStartedAt: undefined, lastSuccessAt: undefined, lastErrorAt: undefined, lastError: undefined, inFlight: 0, storeRoundTripMs: undefined };

/**
 * Everything a service needs to expose one Roster node on its own HTTP server, from the node and
 * a registry, with nothing given twice: Prometheus metrics (the `roster_` series and client-go's
 * `leader_election_master_status` and `leader_election_slowpath_total`) in the registry, the
 * `/healthz` and `/readyz` probes, and the three handlers. The node's timing comes from
 * `node.settings`. Two steps around `createNode()`, because the store must be wrapped before the
 * node is made on it: {@link Observation.instrument} the store, then {@link Observation.attach}
 * the node. The lower-level pieces it wires ({@link PromRosterMetrics}, {@link InstrumentedKV},
 * {@link watchNodeMetrics}, {@link watchProbes}, the handlers) stay available.
 *
 * @example
 * ```ts
 * const registry = new Registry();
 * const roster = observe({ registry });
 * const node = createNode({ store: roster.instrument(await RedisKV.connect({ url })), group: 'billing', env: 'prod' });
 * roster.attach(node);
 * createServer((req, res) => {
 *   const route = roster.routes[new URL(req.url ?? '/', 'http://localhost').pathname as keyof ObservedRoutes];
 *   if (route) return void route(req, res);
 *   // … the service's own routes
 * }).listen(8080);
 * await node.start();
 * ```
 */
export function observe(options: ObserveOptions = {}): Observation {
  const clock = options.clock ?? realClock;
  const metrics = new PromRosterMetrics(options.registry ? { registry: options.registry } : {});
  let store: InstrumentedKV | undefined;
  let node: RosterNode | undefined;
  let watched: NodeProbes | undefined;
  let unwatchMetrics: (() => void) | undefined;
  let closed = false;

  const input = (): ProbeInput =>
    watched?.input() ?? {
      // No node yet: a program still connecting to its store (live, not ready).
      state: 'connecting',
      role: undefined,
      isLeader: false,
      leader: undefined,
      listed: false,
      store: store?.health ?? NO_STORE,
      now: clock.now(),
      timeoutMs: 0,
      intervalMs: 0,
    };
  const probes = { input, liveness: () => liveness(input()), readiness: () => readiness(input()) };
  const close = (): void => {
    if (closed) return;
    closed = true;
    unwatchMetrics?.();
    watched?.stop();
  };

  return {
    registry: metrics.registry,
    metrics,
    probes,
    routes: {
      '/metrics': createMetricsHandler(metrics.registry, options.logger ? { logger: options.logger } : {}),
      '/healthz': createProbeHandler(probes, 'liveness'),
      '/readyz': createProbeHandler(probes, 'readiness'),
    },
    instrument(kv: KV): InstrumentedKV {
      if (store) throw new ConfigError('store', kv.name, 'observe: Expected `instrument()` to be called once, for the store of the one node observed');
      store = new InstrumentedKV(kv, { metrics, clock });
      return store;
    },
    attach(attached: RosterNode): void {
      if (node) throw new ConfigError('node', attached.id, `observe: Expected \`attach()\` to be called once, for one node (${node.id} is attached)`);
      if (!store) throw new ConfigError('node', attached.id, 'observe: Expected `instrument(kv)` first, and the node created on the store it returns, before `attach(node)`');
      if (closed) return;
      node = attached;
      setDeadline(store, attached.settings.operationTimeoutMs);
      unwatchMetrics = watchNodeMetrics(attached, metrics, { clock });
      watched = watchProbes(attached, { store, clock });
    },
    close,
    [Symbol.dispose]: close,
  };
}
