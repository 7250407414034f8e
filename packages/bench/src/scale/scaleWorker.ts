/**
 * One worker process of the scale bench: `--count` Roster nodes from `createNode()` sharing one
 * `RedisKV` (or the store its `--url` names: `etcd://…` opens `EtcdKV`, `postgres://…` `PostgresKV`, `mysql://…` `MySQLKV`, `nats://…` `NatsKV`). Every `--report-every` ms it prints one JSON status line on stdout: how many of its
 * nodes follow which leader, how many members they see, which of them lead, and its CPU time.
 * It also prints `{"t","event":"leader","id"}` the moment one of its nodes becomes leader, every
 * change of role of its first three nodes (`"event":"role"`), every other node's stand (`"event":"stand"`), and with `--trace-ops` every store
 * operation of those three on a key other than their id key as it ends (`"event":"op"`).
 * SIGTERM, SIGINT or a closed stdin stop every node gracefully, then it prints `stopped`.
 *
 * `--url URL --group G --prefix P --count N --interval MS --timeout MS [--report-every MS] [--trace-ops]`
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createNode, ListCache, type RosterNode } from '@roster/election';
import { connectStore, type KV, type Logger } from '@roster/kv-adapter';

/** What a worker prints every report period. */
export interface WorkerStatus {
  readonly t: number;
  readonly event: 'status';
  readonly count: number;
  /** Nodes whose start() resolved. */
  readonly started: number;
  /** Leader id → how many of this worker's nodes follow (or are) it. */
  readonly following: Record<string, number>;
  /** Ids of this worker's nodes that lead. */
  readonly leading: readonly string[];
  /** How many of this worker's nodes are in each role. */
  readonly roles: Record<string, number>;
  /** The smallest and largest member count its nodes see. */
  readonly minMembers: number;
  readonly maxMembers: number;
  /** process.cpuUsage() since start, user + system, in ms. */
  readonly cpuMs: number;
  /** The event loop's delay since the previous report, 99th percentile and maximum, in ms. */
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /**
   * Leader id → when this worker's nodes that follow (or are) it began to: the median and the
   * latest of their `leader` updates' times (Date.now() in the worker as the update was emitted),
   * so that "every member follows" is timed by the members themselves, not by the report period.
   */
  readonly followSince: Record<string, { readonly median: number; readonly last: number }>;
  /** The nodes' `stats` counters, summed over the worker's nodes. */
  readonly stats: Record<string, number>;
  /**
   * Store operations the worker's nodes issued since start, by operation (`get`, `getRange`,
   * `exchange`, …). Each is one command sent to Redis (RedisKV runs every operation as a single
   * command or a single script call), so this counts the commands clients send, whereas Redis's
   * `INFO commandstats` also counts the commands a script runs inside.
   */
  readonly sent: Record<string, number>;
  /** Warnings and errors the nodes logged since start, by message. */
  readonly warnings: Record<string, number>;
}

/** Every operation of the KV interface, each one command sent to the store. */
const OPERATIONS = ['get', 'set', 'delete', 'append', 'take', 'getRange', 'exchange', 'compareAndSet', 'time'] as const;

type Operation = (typeof OPERATIONS)[number];

/** `kv` with every operation of {@link OPERATIONS} passed through `around`, which calls `call` to run it. */
function aroundOperations(kv: KV, around: (op: Operation, args: unknown[], call: () => Promise<unknown>) => Promise<unknown>): KV {
  const wrapped = Object.create(kv) as Record<string, unknown>;
  for (const op of OPERATIONS) {
    const original = (kv as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[op]!.bind(kv);
    wrapped[op] = (...args: unknown[]) => around(op, args, () => original(...args));
  }
  return wrapped as unknown as KV;
}

/** `kv` with a count of the operations issued through it. */
function counted(kv: KV, sent: Record<string, number>): KV {
  for (const op of OPERATIONS) sent[op] = 0;
  return aroundOperations(kv, (op, _args, call) => {
    sent[op]!++;
    return call();
  });
}

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    group: { type: 'string' },
    prefix: { type: 'string' },
    count: { type: 'string' },
    interval: { type: 'string' },
    timeout: { type: 'string' },
    'report-every': { type: 'string', default: '250' },
    'trace-ops': { type: 'boolean', default: false },
  },
  strict: true,
});
const count = Number(values.count);
const redis = await connectStore(values.url!, { connectTimeoutMs: 10_000 });
const sent: Record<string, number> = {};
const kv = counted(redis, sent);
const nodes: RosterNode[] = [];
// The nodes log nothing here, but their warnings and errors are counted by message.
const warnings: Record<string, number> = {};
const countWarning = (fields: object, message = '(no message)'): void => {
  const err = (fields as { err?: unknown }).err;
  const key = err instanceof Error ? `${message}: ${err.name}: ${err.message.slice(0, 80)}` : message;
  warnings[key] = (warnings[key] ?? 0) + 1;
};
const logger: Logger = { debug: () => {}, info: () => {}, warn: countWarning, error: countWarning };
// As a process hosting many nodes of one group would: each new member list is read or built once.
const listCache = new ListCache();
/** The first nodes of each worker (the first after the leader by id stand first) print every change of role (and, traced, their store operations). */
const TRACED = 3;
for (let i = 0; i < count; i++) {
  // Ids of one width whatever N, so that the bytes per member compare across N.
  const id = `${values.prefix}-${String(i).padStart(5, '0')}`;
  nodes.push(createNode({ store: i < TRACED && values['trace-ops'] ? traced(kv, id) : kv, group: values.group!, env: 'bench', id, intervalMs: Number(values.interval), timeoutMs: Number(values.timeout), listCache, logger }));
}

/** `kv` with each operation on a key other than the node's id key printed as it ends: `{"event":"op"}`. */
function traced(kv: KV, id: string): KV {
  return aroundOperations(kv, (op, args, call) => {
    const key = typeof args[0] === 'string' ? args[0] : '';
    if (key.includes('/id/')) return call();
    const t = Date.now();
    const print = (outcome: string): void => {
      process.stdout.write(`${JSON.stringify({ t, event: 'op', id, op, key: key.split('/').slice(3).join('/'), ms: Date.now() - t, outcome })}\n`);
    };
    const p = call();
    p.then(
      (r) => print(typeof r === 'string' ? `${r.length} chars` : r === null ? 'null' : typeof r === 'object' && 'swapped' in r ? `swapped ${String((r as { swapped: boolean }).swapped)}` : 'ok'),
      (error: unknown) => print(`failed: ${(error as Error).message.slice(0, 60)}`),
    );
    return p;
  });
}
/** When each node's current leader became its leader (index as in `nodes`). */
const followedAt: number[] = [];
nodes.forEach((node, i) => {
  node.on('leader', () => {
    followedAt[i] = Date.now();
  });
  node.on('role', (update) => {
    if (update.role === 'leader') process.stdout.write(`${JSON.stringify({ t: Date.now(), event: 'leader', id: node.id })}\n`);
    if (i < TRACED) process.stdout.write(`${JSON.stringify({ t: Date.now(), event: 'role', id: node.id, role: update.role, reason: update.reason })}\n`);
    else if (update.role === 'candidate') process.stdout.write(`${JSON.stringify({ t: Date.now(), event: 'stand', id: node.id, reason: update.reason })}\n`);
  });
});
let started = 0;
for (const node of nodes) void node.start().then(() => started++, (error: unknown) => process.stderr.write(`start: ${String(error)}\n`));

const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

function report(): void {
  const following: Record<string, number> = {};
  const since: Record<string, number[]> = {};
  const leading: string[] = [];
  const roles: Record<string, number> = {};
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const [i, node] of nodes.entries()) {
    const leader = node.leader?.id;
    if (leader !== undefined) following[leader] = (following[leader] ?? 0) + 1;
    if (leader !== undefined && followedAt[i] !== undefined) (since[leader] ??= []).push(followedAt[i]!);
    if (node.role === 'leader') leading.push(node.id);
    roles[node.role] = (roles[node.role] ?? 0) + 1;
    const seen = node.members.list.length;
    min = Math.min(min, seen);
    max = Math.max(max, seen);
  }
  const stats: Record<string, number> = {};
  for (const node of nodes) for (const [name, n] of Object.entries(node.stats)) stats[name] = (stats[name] ?? 0) + n;
  const cpu = process.cpuUsage();
  const lagP99Ms = lag.count > 0 ? lag.percentile(99) / 1e6 : 0;
  const lagMaxMs = lag.count > 0 ? lag.max / 1e6 : 0;
  lag.reset();
  const followSince = Object.fromEntries(Object.entries(since).map(([id, ts]) => {
    ts.sort((a, b) => a - b);
    return [id, { median: ts[Math.floor(ts.length / 2)]!, last: ts.at(-1)! }];
  }));
  const status: WorkerStatus = { t: Date.now(), event: 'status', count, started, following, followSince, leading, roles, minMembers: nodes.length ? min : 0, maxMembers: max, cpuMs: (cpu.user + cpu.system) / 1000, lagP99Ms, lagMaxMs, stats, sent: { ...sent }, warnings: { ...warnings } };
  process.stdout.write(`${JSON.stringify(status)}\n`);
}
const ticker = setInterval(report, Number(values['report-every']));
report();

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) process.exit(143);
  stopping = true;
  clearInterval(ticker);
  const hard = setTimeout(() => process.exit(1), 15_000);
  await Promise.allSettled(nodes.map((n) => n.stop()));
  await redis.close();
  clearTimeout(hard);
  process.stdout.write(`${JSON.stringify({ t: Date.now(), event: 'stopped' })}\n`);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
