/** The bench's command line, and what each mode runs. */
import { parseArgs } from 'node:util';
import type { ScaleCase } from './scale/runScale.js';

/** The sections of a run. */
export const SECTIONS = ['failover', 'stall', 'resign', 'membership', 'scale'] as const;
/** One section. */
export type Section = (typeof SECTIONS)[number];
/** The stores of the scale section. */
export const SCALE_STORES = ['redis', 'cluster', 'sentinel', 'etcd', 'postgres', 'mariadb', 'nats'] as const;
/** One store of the scale section. */
export type ScaleStore = (typeof SCALE_STORES)[number];
/** The systems compared. */
export const SYSTEMS = ['roster', 'roster-renew', 'roster-sentinel', 'roster-etcd', 'roster-postgres', 'roster-mariadb', 'roster-nats', 'redis-leader', 'etcd'] as const;
/** One system family. */
export type SystemFamily = (typeof SYSTEMS)[number];

/** What a run does. */
export interface BenchOptions {
  readonly mode: 'quick' | 'full';
  readonly systems: readonly SystemFamily[];
  readonly sections: readonly Section[];
  /** Nodes per group in the comparison. */
  readonly nodes: number;
  readonly kills: number;
  readonly resigns: number;
  readonly membershipTries: number;
  readonly stall: { readonly gridMs: number; readonly tries: number };
  /** etcd's stall grid (its TTL is whole seconds, so its grid is long). */
  readonly etcdStall: { readonly gridMs: number; readonly tries: number };
  /** Roster's timings, `[I, T]`. */
  readonly rosterTimings: readonly (readonly [number, number])[];
  /**
   * Renew deadlines R other than the default T/2 that `roster-renew` runs Roster with, at the first
   * of {@link rosterTimings}: how R trades the disruption-free pause against the margin before
   * others stand.
   */
  readonly rosterRenewDeadlines: readonly number[];
  readonly scale: readonly ScaleCase[];
  /** Busy loops (`node -e 'for(;;);'`, niceness 0) that load the machine while the scale section runs: `--hog N`. */
  readonly hog?: number;
  /**
   * Write the report into docs/ (docs/benchmarks.md and its plots): only a full run of everything
   * does by default, or an explicit `--write-docs`; otherwise the report goes beside the results.
   */
  readonly writeDocs: boolean;
  /** Run nothing: render the report from this result file (beside it, or into docs/ with `--write-docs`). */
  readonly reportFrom?: string;
}

/** The usage text. */
export const USAGE = `pnpm bench [--quick] [--only ${SYSTEMS.join(',')}] [--section ${SECTIONS.join(',')}]
           [--scale-n 10,100,1000] [--scale-store ${SCALE_STORES.join(',')}] [--hog N] [--write-docs | --no-docs]
pnpm bench --report packages/bench/results/latest.json [--write-docs]

  --quick      a few minutes: fewer kills and tries, a coarser grid for etcd, N up to 1,000
  (default)    the full run: 10 kills, 3 tries on a 50 ms grid for every system, N up to 10,000
  --only       the systems to compare (default: all); roster-sentinel is Roster at
               I=100/T=500 on a Redis Sentinel deployment (a master, 2 replicas, 3 sentinels)
  --section    the sections to run (default: all)
  --scale-n    the member counts of the scale section
  --hog N      N busy loops (node -e 'for(;;);', niceness 0) load the machine while the scale
               section runs; its lines say the load average at its start and end
  --scale-store the stores of the scale section: redis (one redis-server, I=100/T=500),
               cluster (a 3-master Redis Cluster, I=1000/T=5000), sentinel (a master, 2
               replicas and 3 sentinels, I=1000/T=5000; N = 100 and 1,000), etcd (one etcd
               member through EtcdKV, I=1000/T=5000; N = 100 and 1,000) and postgres (one
               PostgreSQL through PostgresKV, I=1000/T=5000; N = 100 and 1,000), mariadb (one
               MariaDB through MySQLKV) and nats (one nats-server with JetStream through
               NatsKV), both I=1000/T=5000, N = 100 and 1,000 (default: all)
  (systems)    roster: Roster on a redis-server; roster-renew: the same at I=100/T=500 with
               the renew deadline R at 150 and 350 ms (the default is T/2 = 250);
               roster-sentinel: on Redis Sentinel;
               roster-etcd: on an etcd member (EtcdKV); roster-postgres: on PostgreSQL
               (PostgresKV); roster-mariadb: on MariaDB (MySQLKV, mysql://);
               roster-nats: on a nats-server's JetStream (NatsKV, nats://);
               redis-leader and etcd: the peers
  --write-docs write the report into docs/benchmarks.md and its plots (--docs is the same);
               the default only for the full run of everything (no --quick, --only, --section,
               --scale-n or --scale-store)
  --no-docs    never touch docs/, even for the full run
  (otherwise)  the report, benchmarks.md and its plots, goes beside the results, in
               packages/bench/results/ (git-ignored), next to the JSON record
  --report F   run nothing; render the report from the result file F, beside F (or into docs/
               with --write-docs)
`;

/** Thrown for a bad command line. */
export class UsageError extends Error {
  readonly code = 'BENCH_USAGE';
}

function list<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) if (!allowed.includes(item as T)) throw new UsageError(`bench: unknown ${what} ${JSON.stringify(item)} (expected ${allowed.join(', ')})`);
  return items as T[];
}

/** Parses the command line. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        quick: { type: 'boolean', default: false },
        only: { type: 'string', multiple: true },
        section: { type: 'string', multiple: true },
        'scale-n': { type: 'string' },
        'scale-store': { type: 'string' },
        hog: { type: 'string' },
        docs: { type: 'boolean' },
        'write-docs': { type: 'boolean' },
        report: { type: 'string' },
        'no-docs': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`bench: ${(error as Error).message}`);
  }
  const v = parsed.values;
  if (v.help) throw new UsageError(USAGE);
  const quick = v.quick === true;
  const systems = list(v.only?.join(','), SYSTEMS, 'system') ?? [...SYSTEMS];
  const sections = list(v.section?.join(','), SECTIONS, 'section') ?? [...SECTIONS];
  const ns = v['scale-n'] === undefined ? undefined : v['scale-n'].split(',').map(Number);
  if (ns?.some((n) => !Number.isInteger(n) || n < 2)) throw new UsageError(`bench: --scale-n takes member counts of at least 2, got ${v['scale-n']}`);
  const stores = list(v['scale-store'], SCALE_STORES, 'scale store') ?? [...SCALE_STORES];
  const hog = v.hog === undefined ? undefined : Number(v.hog);
  if (hog !== undefined && (!Number.isInteger(hog) || hog < 0 || hog > 64)) throw new UsageError(`bench: --hog takes a number of busy loops from 0 to 64, got ${v.hog}`);
  // Only the full run of everything stands for the committed figures: a quick or partial run does not.
  const fullRun = !quick && v.only === undefined && v.section === undefined && ns === undefined && v['scale-store'] === undefined && hog === undefined;
  const asked = v['write-docs'] === true || v.docs === true;
  if (asked && v['no-docs']) throw new UsageError('bench: --write-docs and --no-docs contradict each other');
  const defaultNs = (store: ScaleStore): number[] => (store === 'sentinel' || store === 'etcd' || store === 'postgres' || store === 'mariadb' || store === 'nats' ? [100, 1000] : store === 'cluster' && !quick ? [10, 100, 1000, 10_000] : [10, 100, 1000]);
  const scaleNs = (store: ScaleStore): number[] => (stores.includes(store) ? (ns ?? defaultNs(store)) : []);
  return {
    mode: quick ? 'quick' : 'full',
    systems,
    sections,
    nodes: 5,
    kills: quick ? 5 : 10,
    resigns: quick ? 3 : 5,
    membershipTries: quick ? 3 : 5,
    stall: { gridMs: 50, tries: 3 },
    etcdStall: quick ? { gridMs: 100, tries: 2 } : { gridMs: 50, tries: 3 },
    rosterTimings: [
      [100, 500],
      [50, 500],
    ],
    rosterRenewDeadlines: [150, 350],
    scale: [
      ...scaleNs('redis').map((members) => ({ store: 'redis' as const, members, intervalMs: 100, timeoutMs: 500 })),
      ...scaleNs('cluster').map((members) => ({ store: 'cluster' as const, members, intervalMs: 1000, timeoutMs: 5000 })),
      ...scaleNs('sentinel').map((members) => ({ store: 'sentinel' as const, members, intervalMs: 1000, timeoutMs: 5000 })),
      ...scaleNs('etcd').map((members) => ({ store: 'etcd' as const, members, intervalMs: 1000, timeoutMs: 5000 })),
      ...scaleNs('postgres').map((members) => ({ store: 'postgres' as const, members, intervalMs: 1000, timeoutMs: 5000 })),
      ...scaleNs('mariadb').map((members) => ({ store: 'mariadb' as const, members, intervalMs: 1000, timeoutMs: 5000 })),
      ...scaleNs('nats').map((members) => ({ store: 'nats' as const, members, intervalMs: 1000, timeoutMs: 5000 })),
    ],
    ...(hog !== undefined && hog > 0 && { hog }),
    writeDocs: v['no-docs'] ? false : asked || (fullRun && v.report === undefined),
    ...(v.report !== undefined && { reportFrom: v.report }),
  };
}
