import { silentLogger, type Logger } from '@roster/kv-adapter';
import { readOnly, send } from '../internal/respond.js';
import type { HttpHandler } from './HttpHandler.js';

/**
 * What {@link createMetricsHandler} serves: a prom-client `Registry` (the service's own, prom-client's
 * global `register`, or a `PromRosterMetrics`' `registry`), or anything of the same shape.
 */
export interface MetricsRegistry {
  /** The content type of the text `metrics()` returns (Prometheus text or OpenMetrics). */
  readonly contentType: string;
  /** The metrics, collected now, as text. */
  metrics(): Promise<string>;
}

/** Options of {@link createMetricsHandler}. */
export interface MetricsHandlerOptions {
  /** Where a failed collection is reported: once when collecting starts failing, once when it works again. @defaultValue silent */
  readonly logger?: Logger;
}

/**
 * A handler that serves a registry's metrics for Prometheus to scrape: `200` with the text of
 * `registry.metrics()` in `registry.contentType`, or `500` with the reason when collecting fails.
 * GET and HEAD only (anything else is `405`); never cached. It answers whatever the path: mount it
 * at `/metrics`. The registry is the one given, never an implicit global: pass prom-client's
 * `register` to serve the global one.
 *
 * @example
 * ```ts
 * const registry = new Registry();
 * const metrics = new PromRosterMetrics({ registry });
 * const serveMetrics = createMetricsHandler(registry);
 * createServer((req, res) => {
 *   if (req.url === '/metrics') return void serveMetrics(req, res);
 *   // … the service's own routes
 * });
 * ```
 */
export function createMetricsHandler(registry: MetricsRegistry, options: MetricsHandlerOptions = {}): HttpHandler {
  const logger = options.logger ?? silentLogger;
  let failing = false;
  return async (request, response) => {
    if (!readOnly(request, response)) return;
    let text: string;
    try {
      text = await registry.metrics();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!failing) logger.warn({ err: error }, `metrics: cannot collect the metrics: ${reason}`);
      failing = true;
      send(response, request, 500, 'text/plain; charset=utf-8', `cannot collect the metrics: ${reason}\n`);
      return;
    }
    if (failing) logger.info({}, 'metrics: collecting works again');
    failing = false;
    send(response, request, 200, registry.contentType, text);
  };
}
