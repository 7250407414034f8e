#!/usr/bin/env node
/**
 * A web service on Roster: every process serves HTTP; one of them, the leader elected over Redis,
 * also does the leader-only work (a digest written every period, fenced by its leadership's
 * token). Every process mounts Roster's `/metrics`, `/healthz` and `/readyz` from `@roster/http`
 * on its own server, and `POST /resign` on the leader hands the work to another process. Run
 * three:
 *
 *   node examples/web-service/dist/main.js --store redis://127.0.0.1:6379 --port 8081
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNode, LeadershipLostError } from '@roster/election';
import { observe } from '@roster/http';
import { RedisKV } from '@roster/kv-adapter/redis';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { publishDigests } from './digest.js';
import { printEvent as report } from './events.js';
import { parseOptions, UsageError, USAGE } from './options.js';
import { serviceRoutes } from './routes.js';

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) return void process.stdout.write(USAGE);
  const { id, env, intervalMs, timeoutMs, periodMs } = options;

  // The service's registry: its own metrics, the process's, and Roster's.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const digestsTotal = new Counter({ name: 'web_service_digests_total', help: 'Digests this process wrote as the leader.', registers: [registry] });

  // Roster's metrics, probes and handlers, on the service's registry. The node runs on the store
  // `instrument()` wraps (its operations counted, its health known to the probes); the service
  // writes its digest to the same Redis, around the wrapper. The timing comes from the node.
  const roster = observe({ registry });
  const redis = await RedisKV.connect({ url: options.store });
  const node = createNode({ store: roster.instrument(redis), group: 'web-service', env, id, intervalMs, timeoutMs });
  roster.attach(node);
  node.on('role', ({ role, reason }) => report({ event: 'role', role, reason }));
  node.on('leader', ({ leader }) => report({ event: 'leader', leader: leader?.id ?? null, token: leader?.token ?? null }));

  // The leader-only work: started each time this process starts leading, with that leadership's
  // fencing token and a signal aborted the moment it may no longer act as leader; stop() and
  // resign() wait for it before their goodbye.
  let digests = 0;
  node.whileLeader(async ({ signal, token }) => {
    report({ event: 'leading', token });
    const written = await publishDigests(signal, {
      store: redis,
      key: `web-service/${env}/digest`,
      id,
      token,
      periodMs,
      report,
      onDigest: () => {
        digests++;
        digestsTotal.inc();
      },
    });
    const reason = LeadershipLostError.is(signal.reason) ? signal.reason.reason : String(signal.reason);
    report({ event: 'stopped-leading', token, reason, digests: written });
  });

  const server = createServer(
    serviceRoutes({
      node,
      roster: roster.routes,
      digests: () => digests,
      onResign: () => report({ event: 'resigning' }),
    }),
  );
  const url = await listen(server, options.port, options.host);
  report({ event: 'listening', id, url });
  await node.start();
  report({ event: 'ready', id });

  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143); // a second signal: at once
    stopping = true;
    report({ event: 'stopping', signal });
    server.close(); // no new connections; the probes say "stopping" meanwhile
    await node.stop(); // a leader's work winds down first, then its goodbye hands over at once
    roster.close();
    await redis.close();
    server.closeAllConnections();
    report({ event: 'stopped' });
  };
  const onSignal = (signal: NodeJS.Signals): void =>
    void stop(signal).catch((error: unknown) => {
      report({ event: 'error', where: 'stop', message: String(error) });
      process.exitCode = 1;
    });
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
    });
  });
}

main().catch((error: unknown) => {
  process.stderr.write(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `web-service: ${String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
