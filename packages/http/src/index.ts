/**
 * `@roster/http`: Roster's metrics and probes, for a service to mount on its own HTTP server (the
 * same ones `roster node --status-port` serves).
 *
 * - **One call**: {@link observe} gives a node's metrics (in the service's registry), probes and
 *   handlers, its timing taken from `node.settings`; the pieces below are what it wires.
 * - **Metrics**: the {@link RosterMetrics} seam (no Prometheus in it; {@link noopMetrics} records
 *   nothing), {@link PromRosterMetrics} on a prom-client registry of the service's choosing
 *   (prom-client is a peer dependency), fed by an {@link InstrumentedKV} around the node's store
 *   and by {@link watchNodeMetrics} from the node's public API; {@link createMetricsHandler} serves
 *   a registry at `/metrics`.
 * - **Probes**: {@link watchProbes} turns a node and its store's health into liveness (`/healthz`:
 *   the node's loops run) and readiness (`/readyz`: it reaches the store, knows a leader, is a
 *   member), as the pure {@link liveness} and {@link readiness} define them;
 *   {@link createProbeHandler} answers them with 200 or 503.
 *
 * The handlers are `node:http` request handlers; Express mounts them as they are, Fastify through
 * `request.raw` and `reply.raw` (README). Nothing here reads the node's internals, starts a server
 * or registers a global metric.
 *
 * @packageDocumentation
 */
export { observe, type ObserveOptions, type Observation, type ObservedRoutes } from './observe.js';
export {
  noopMetrics,
  type RosterMetrics,
  type StoreOperation,
  type StoreErrorKind,
  type KeyKind,
  type ElectionOutcome,
} from './metrics/RosterMetrics.js';
export { PromRosterMetrics, type PromRosterMetricsOptions } from './metrics/PromRosterMetrics.js';
export { InstrumentedKV, type InstrumentedKVOptions, type StoreHealth } from './metrics/InstrumentedKV.js';
export { watchNodeMetrics, type WatchNodeMetricsOptions } from './metrics/watchNodeMetrics.js';
export { liveness, readiness, type ProbeInput, type ProbeResult } from './probes/probes.js';
export { watchProbes, type WatchProbesOptions, type NodeProbes, type Probes } from './probes/watchProbes.js';
export type { HttpHandler } from './handlers/HttpHandler.js';
export { createProbeHandler, type ProbeKind } from './handlers/createProbeHandler.js';
export { createMetricsHandler, type MetricsRegistry, type MetricsHandlerOptions } from './handlers/createMetricsHandler.js';
