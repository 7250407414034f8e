import { ConfigError } from '@roster/kv-adapter';
import type { Probes } from '../probes/watchProbes.js';
import { readOnly, send } from '../internal/respond.js';
import type { HttpHandler } from './HttpHandler.js';

/** Which probe a handler answers: `liveness` (`/healthz`) or `readiness` (`/readyz`). */
export type ProbeKind = 'liveness' | 'readiness';

/**
 * A handler that answers one probe, for Kubernetes or a load balancer: `200` when it passes,
 * `503` when not, with a JSON body saying why: `{"healthy":true,"reason":"ok"}` for liveness,
 * `{"ready":false,"reason":"no leader known"}` for readiness (the same bodies as
 * `roster node --status-port`). GET and HEAD only (anything else is `405`); never cached. It
 * answers whatever the path: mount it where the probe is (`/healthz`, `/readyz`).
 *
 * @param probes - what to answer from: {@link watchProbes}' result, or anything with
 *   `liveness()` and `readiness()`.
 * @param kind - the probe this handler answers.
 *
 * @throws `ConfigError` for another `kind`.
 *
 * @example
 * ```ts
 * const probes = watchProbes(node, { store: kv });
 * const healthz = createProbeHandler(probes, 'liveness');
 * const readyz = createProbeHandler(probes, 'readiness');
 * createServer((req, res) => {
 *   if (req.url === '/healthz') return void healthz(req, res);
 *   if (req.url === '/readyz') return void readyz(req, res);
 *   // … the service's own routes
 * });
 * ```
 */
export function createProbeHandler(probes: Probes, kind: ProbeKind): HttpHandler {
  if (kind !== 'liveness' && kind !== 'readiness') throw new ConfigError('kind', kind, 'createProbeHandler: Expected `kind` to be "liveness" or "readiness"');
  return async (request, response) => {
    if (!readOnly(request, response)) return;
    let code: number;
    let body: object;
    try {
      const { ok, reason } = kind === 'liveness' ? probes.liveness() : probes.readiness();
      code = ok ? 200 : 503;
      body = kind === 'liveness' ? { healthy: ok, reason } : { ready: ok, reason };
    } catch (error) {
      code = 500;
      body = { [kind === 'liveness' ? 'healthy' : 'ready']: false, reason: `the probe failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    send(response, request, code, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`);
  };
}
