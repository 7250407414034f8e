// `pnpm nemesis [--minutes N] [--stores redis,cluster,sentinel,postgres,etcd,mariadb,nats] [--seed S] [--interval MS]`
// (the interval defaults to the one advised for the measured round trip, as `roster verify`'s):
// the long form of test/verify.test.ts. Starts each store itself (so the store faults are in the
// schedule for Redis), runs `runVerify` with every fault kind for N minutes (default 10) per store,
// prints each report, then one Markdown row per fault kind and store (the track record of
// docs/faults.md: median and worst self-fence, failover and recovery). Exits 1 on any violation.
import { parseArgs } from 'node:util';
import { LocalEtcd, LocalMariaDB, LocalNats, LocalPostgres, LocalRedis, LocalRedisCluster, LocalRedisSentinel, findRedisServer } from '@roster/testing';
import { FAULT_KINDS, formatReport, runVerify } from '@roster/verify';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    stores: { type: 'string', default: 'redis,cluster,sentinel,postgres,etcd,mariadb,nats' },
    seed: { type: 'string' },
    interval: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  process.stderr.write(`pnpm nemesis: --minutes must be a positive number, got ${JSON.stringify(values.minutes)}\n`);
  process.exit(2);
}
const intervalMs = values.interval === undefined ? undefined : Number(values.interval);
const seed = values.seed === undefined ? undefined : Number(values.seed);
const binary = findRedisServer();
const etcdBinary = process.env.ROSTER_ETCD_BINARY ?? '/usr/bin/etcd';

/** Each store: how to start it, its URL, and its process for the store faults (Redis alone). */
const STORES = {
  redis: async () => {
    const server = await LocalRedis.start({ binary });
    const control = {
      kill: () => server.kill(),
      start: () => server.restart({ keepData: true }),
      freeze: () => server.pause(),
      thaw: () => server.resume(),
      restart: () => server.restart({ keepData: true }),
      killLosesData: true,
    };
    return { url: server.url, control, stop: () => server.stop() };
  },
  cluster: async () => {
    const server = await LocalRedisCluster.start({ binary, masters: 3, replicas: 0 });
    return { url: server.url, stop: () => server.stop() };
  },
  sentinel: async () => {
    const server = await LocalRedisSentinel.start({ binary, failoverTimeoutMs: 2000 });
    return { url: server.url, stop: () => server.stop() };
  },
  postgres: async () => {
    const server = await LocalPostgres.start();
    return { url: server.url, stop: () => server.stop() };
  },
  etcd: async () => {
    const server = await LocalEtcd.start({ binary: etcdBinary, members: 3 });
    return { url: server.url('nemesis'), stop: () => server.stop() };
  },
  mariadb: async () => {
    const server = await LocalMariaDB.start();
    return { url: server.url, stop: () => server.stop() };
  },
  nats: async () => {
    const server = await LocalNats.start({ ...(process.env.ROSTER_NATS_BINARY && { binary: process.env.ROSTER_NATS_BINARY }) });
    return { url: server.url('nemesis'), stop: () => server.stop() };
  },
};

const rows = [];
let failed = false;
for (const name of values.stores.split(',').map((s) => s.trim()).filter(Boolean)) {
  const start = STORES[name];
  if (!start) {
    process.stderr.write(`pnpm nemesis: unknown store ${JSON.stringify(name)} (${Object.keys(STORES).join(', ')})\n`);
    process.exit(2);
  }
  process.stderr.write(`pnpm nemesis: ${name}, ${minutes} min\n`);
  const store = await start();
  let lastShown = 0;
  try {
    const kinds = FAULT_KINDS.filter((k) => store.control !== undefined || !k.startsWith('store-'));
    const result = await runVerify({
      store: store.url,
      durationMs: minutes * 60_000,
      ...(intervalMs !== undefined && { intervalMs }),
      kinds,
      ...(seed !== undefined && { seed }),
      ...(store.control && { storeControl: store.control }),
      onProgress: (p) => {
        if (p.phase === 'running' && p.elapsedMs - lastShown >= 30_000) {
          lastShown = p.elapsedMs;
          process.stderr.write(`  ${name}: ${Math.round(p.elapsedMs / 1000)} s, ${p.faultsDone}/${p.faultsPlanned} faults\n`);
        }
      },
    });
    process.stdout.write(`\n## ${name}\n\n${formatReport(result, { store: store.url })}`);
    failed ||= !result.ok;
    for (const kind of kinds) {
      const outcomes = result.report.faults.filter((o) => o.fault.kind === kind);
      if (outcomes.length === 0) continue;
      const bound = result.timing.timeoutMs + 2 * result.timing.intervalMs;
      const within = (o, v) => (v !== undefined && v <= o.fault.to - o.fault.from + bound ? v : undefined);
      const figures = (pick) => spread(outcomes.map((o) => within(o, pick(o))).filter((v) => v !== undefined));
      const violations = result.report.violations.filter((v) => outcomes.some((o) => v.at >= o.fault.from && v.at <= o.fault.to + bound)).length;
      rows.push(`| ${name} | \`${kind}\` | ${outcomes.length} | ${figures((o) => o.selfFenceMs)} | ${figures((o) => o.failoverMs)} | ${spread(outcomes.map((o) => o.recoveryMs).filter((v) => v !== undefined))} | ${violations === 0 ? 'none' : `${violations} (seed ${result.seed})`} |`);
    }
  } finally {
    await store.stop();
  }
}
process.stdout.write(`\n| store | fault | n | self-fence ms (median, worst) | failover ms | recovery ms | violations |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`);
process.exit(failed ? 1 : 0);

/** `median / worst` of `values`, or `-`. */
function spread(values) {
  if (values.length === 0) return '-';
  const sorted = [...values].sort((a, b) => a - b);
  return `${Math.round(sorted[Math.floor((sorted.length - 1) / 2)])} / ${Math.round(sorted.at(-1))}`;
}
