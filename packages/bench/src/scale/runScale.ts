/**
 * Roster at scale: one leader process and worker processes hosting many `createNode()` nodes each
 * (scaleWorker.ts), on one redis-server or a Redis Cluster. Measures the time to converge, what
 * the store serves per member and interval (from Redis's own counters), the leader's CPU, and the
 * failover with N members.
 */
import { setPriority } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { spawnTracked, terminate, type Tracked } from '../infra/processes.js';
import { builtScript } from '../paths.js';
import { jsonLine } from '../systems/System.js';
import type { Progress } from '../measure/leadership.js';
import { difference, RedisStatsReader, totalCalls, type RedisCounters } from './redisStats.js';
import type { WorkerStatus } from './scaleWorker.js';

/** One scale configuration. */
export interface ScaleCase {
  readonly store: 'redis' | 'cluster' | 'sentinel' | 'etcd' | 'postgres' | 'mariadb' | 'nats';
  readonly members: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/** What one case measured. */
export interface ScaleResult extends ScaleCase {
  readonly workers: number;
  /** From the spawn of the workers until every member follows the leader and lists all N; null when it did not within the limit. */
  readonly convergeMs: number | null;
  readonly convergeLimitMs: number;
  /** The steady window over which cost was counted. */
  readonly windowMs: number;
  /**
   * Commands the clients sent per member per interval (every process's count of its store
   * operations, each one command), in total and by operation.
   */
  readonly commandsPerMemberInterval: number;
  readonly sentByOperation: Readonly<Record<string, number>>;
  /** Calls Redis counted per member per interval (`INFO commandstats`: the commands scripts run inside included), in total and by command. */
  readonly redisCallsPerMemberInterval: number;
  readonly commandsByName: Readonly<Record<string, number>>;
  /** Bytes Redis sent, and received, per member per interval. */
  readonly bytesOutPerMemberInterval: number;
  readonly bytesInPerMemberInterval: number;
  /** Bytes Redis sent per second, in total. */
  readonly bytesOutPerSecond: number;
  /** The leader process's CPU over the window, in % of one core, and µs per member per interval. */
  readonly leaderCpuPercent: number;
  readonly leaderCpuUsPerMemberInterval: number;
  /** The CPU of every process but the leader's over the window, in % of one core (the machine has its cores for all of them). */
  readonly membersCpuPercent?: number;
  /** The worst 99th percentile of the event-loop delay of any process over the window, in ms. */
  readonly lagP99Ms: number;
  /** SIGKILL of the leader process until a member reports leading; null when none did. */
  readonly failoverMs: number | null;
  /**
   * …until every surviving member follows that new leader: the latest time a member began to follow
   * it, as the member's own `leader` update was emitted (not the workers' report period).
   */
  readonly allFollowMs: number | null;
  /** …until half the surviving members follow it (the median of the workers' medians). */
  readonly halfFollowMs?: number | null;
  /**
   * Member lists the nodes took in from the spawn of the workers until convergence (or the limit):
   * built from a list step, or read whole.
   */
  readonly listsTakenIn?: { readonly cached: number; readonly step: number; readonly whole: number };
  /** Elections won by members of the workers before the leader process was killed: leadership that moved on its own. */
  readonly unforcedElections: number;
  /** What went differently from plan, for readers (e.g. the leader lost leadership on its own). */
  readonly note?: string;
  readonly error?: string;
}

/** Options of {@link runScaleCase}. */
export interface ScaleRunOptions {
  /** The store URL given to the nodes. */
  readonly url: string;
  /** The ports of the Redis servers, for their counters; none for etcd (its cost is what the clients count). */
  readonly ports: readonly number[];
  /**
   * Reads a store's own counters in place of Redis's (MariaDB's `SHOW GLOBAL STATUS`); without it
   * and without `ports` (etcd, PostgreSQL, NATS) only the clients' count is shown.
   */
  readonly serverCounters?: () => Promise<RedisCounters>;
  /** The most members one worker process hosts. */
  readonly perWorker: number;
  /** How long cost is counted. */
  readonly windowMs: number;
  readonly convergeLimitMs: number;
}

/** The niceness of the worker processes (the leader process runs at the bench's own). */
export const WORKER_NICENESS = 10;

interface Proc {
  readonly tracked: Tracked;
  readonly count: number;
  last?: WorkerStatus;
  leaderLines: { t: number; id: string }[];
  /** The role changes of the worker's first few nodes. */
  roleLines: { t: number; id: string; role: string; reason: string }[];
  /** The stands of its other nodes (the first 200). */
  standLines: { t: number; id: string; reason: string }[];
  /** The store operations of the worker's first few nodes. */
  opLines: { t: number; id: string; op: string; key: string; ms: number; outcome: string }[];
  /** The operations traced before the first node of the process stopped leading. */
  opsAtLoss?: Proc['opLines'];
}

/**
 * How many members run beside the leader in a process of their own, at the bench's priority: the
 * first after the leader in its list, who stand first when it dies (the library's first tier of
 * candidates). On their own hosts the new leader's round trips to the store take what the store
 * takes; in a worker they would wait behind the event loop of a thousand other members (0.5–1.5 s
 * at N = 10,000 on two cores), which no member of a real group does. Their ids (`lead1-…`) sort
 * right after the leader's.
 */
export const STANDBYS = 3;

function startWorker(options: ScaleRunOptions, c: ScaleCase, group: string, prefix: string, count: number, reportEvery: number, niced = true, traceOps = false): Proc {
  const proc: Proc = { tracked: undefined as unknown as Tracked, count, leaderLines: [], roleLines: [], standLines: [], opLines: [] };
  const tracked = spawnTracked(process.execPath, [
    builtScript('scale/scaleWorker.js'),
    '--url', options.url, '--group', group, '--prefix', prefix, '--count', String(count),
    '--interval', String(c.intervalMs), '--timeout', String(c.timeoutMs), '--report-every', String(reportEvery),
    ...(traceOps ? ['--trace-ops'] : []),
  ], {
    onLine: (line) => {
      const o = jsonLine(line);
      if (!o) return;
      if (o.event === 'status') proc.last = o as unknown as WorkerStatus;
      if (o.event === 'leader' && typeof o.id === 'string' && typeof o.t === 'number') proc.leaderLines.push({ t: o.t, id: o.id });
      if (o.event === 'stand' && proc.standLines.length < 200) proc.standLines.push(o as unknown as Proc['standLines'][number]);
      if (o.event === 'role') {
        const line = o as unknown as Proc['roleLines'][number];
        if (line.role !== 'leader' && proc.roleLines.at(-1)?.role === 'leader') proc.opsAtLoss ??= proc.opLines.slice(-60);
        proc.roleLines.push(line);
      }
      if (o.event === 'op') {
        proc.opLines.push(o as unknown as Proc['opLines'][number]);
        if (proc.opLines.length > 2000) proc.opLines.splice(0, 1000);
      }
    },
  });
  (proc as { tracked: Tracked }).tracked = tracked;
  // The members of a worker stand for many machines, each with a CPU of its own; on one machine
  // they run at a lower priority, so that they do not starve the leader process and the store of
  // the CPU those have on their own hosts.
  if (niced && tracked.pid > 0) setPriority(tracked.pid, WORKER_NICENESS);
  return proc;
}

async function waitFor(check: () => boolean, limitMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await delay(everyMs);
  }
  return check();
}

/** Runs one case; never throws (a failure is recorded in `error`). */
export async function runScaleCase(c: ScaleCase, options: ScaleRunOptions, progress: Progress): Promise<ScaleResult> {
  const group = `scale-${c.store}-${c.members}-${Date.now()}`;
  const reportEvery = Math.max(100, Math.min(250, c.intervalMs));
  const procs: Proc[] = [];
  const standbys = Math.min(STANDBYS, c.members - 1);
  const nWorkers = Math.ceil((c.members - 1 - standbys) / options.perWorker);
  const base = { ...c, workers: nWorkers, convergeLimitMs: options.convergeLimitMs, windowMs: options.windowMs };
  const empty = { convergeMs: null, commandsPerMemberInterval: Number.NaN, sentByOperation: {}, redisCallsPerMemberInterval: Number.NaN, lagP99Ms: Number.NaN, commandsByName: {}, bytesOutPerMemberInterval: Number.NaN, bytesInPerMemberInterval: Number.NaN, bytesOutPerSecond: Number.NaN, leaderCpuPercent: Number.NaN, leaderCpuUsPerMemberInterval: Number.NaN, membersCpuPercent: Number.NaN, failoverMs: null, allFollowMs: null, unforcedElections: 0 };
  try {
    // Traced too: when leadership moves on its own, its role changes and operations say why.
    const leader = startWorker(options, c, group, 'lead0', 1, reportEvery, false, true);
    procs.push(leader);
    if (!(await waitFor(() => leader.last?.leading.length === 1, 10 * c.timeoutMs + 20_000))) throw new Error('the leader process never led');
    const leaderId = leader.last!.leading[0]!;
    const spawnedAt = Date.now();
    // Their store operations are traced: a failover that misses its bound is theirs to explain.
    procs.push(startWorker(options, c, group, 'lead1', standbys, reportEvery, false, true));
    let left = c.members - 1 - standbys;
    for (let w = 0; left > 0; w++) {
      const count = Math.min(options.perWorker, left);
      left -= count;
      procs.push(startWorker(options, c, group, `w${String(w).padStart(4, '0')}`, count, reportEvery));
    }
    const converged = (leaderOf: string, n: number, among: readonly Proc[]): boolean =>
      among.every((p) => p.last !== undefined && p.last.started === p.count && p.last.following[leaderOf] === p.count && p.last.minMembers === n && p.last.maxMembers === n);
    // Every T until converged: where the members are (started, listed by the leader, seeing the whole list).
    const joining = setInterval(() => {
      const started = procs.reduce((n, p) => n + (p.last?.started ?? 0), 0);
      const listed = leader.last?.maxMembers ?? 0;
      const seeing = procs.reduce((n, p) => n + (p.last !== undefined && p.last.minMembers === c.members ? p.count : 0), 0);
      const lag = Math.max(...procs.map((p) => p.last?.lagMaxMs ?? 0));
      const pongs = leader.last?.stats;
      progress(`    +${((Date.now() - spawnedAt) / 1000).toFixed(1)} s: ${started} started, the leader lists ${listed} (PINGs seen ${pongs?.['pong'] ?? 0}, PONGs failed ${pongs?.['pong.failed'] ?? 0}), ${seeing} in workers whose every member sees all ${c.members}; event-loop delay max ${Math.round(lag)} ms`);
    }, c.timeoutMs);
    const ok = await waitFor(() => converged(leaderId, c.members, procs), options.convergeLimitMs).finally(() => clearInterval(joining));
    const convergeMs = ok ? Math.max(...procs.map((p) => p.last!.t)) - spawnedAt : null;
    const stat = (name: string): number => procs.reduce((n, p) => n + (p.last?.stats[name] ?? 0), 0);
    const listsTakenIn = { cached: stat('list.cached'), step: stat('list.step'), whole: stat('list.whole') };
    progress(`  scale ${c.store} N=${c.members} I=${c.intervalMs}/T=${c.timeoutMs}: ${ok ? `converged in ${convergeMs} ms` : `not converged within ${options.convergeLimitMs} ms (${procs.map((p) => `${p.last?.minMembers ?? 0}-${p.last?.maxMembers ?? 0}`).join(' ')})`}; lists taken in: ${listsTakenIn.cached} from the process's cache, ${listsTakenIn.step} by step, ${listsTakenIn.whole} whole; elections ${stat('elected')}; candidacies ${['stale', 'pong-timeout', 'goodbye', 'unreachable'].map((r) => `${r} ${stat(`candidacy.${r}`)}`).join(', ')}`);

    if (!ok) {
      // Why not, for whoever has to find out: the members' warnings, counted by message.
      const logged: Record<string, number> = {};
      for (const p of procs) for (const [k, n] of Object.entries(p.last?.warnings ?? {})) logged[k] = (logged[k] ?? 0) + n;
      progress(`    warnings logged: ${JSON.stringify(logged)}`);
    }

    // Cost over a steady window.
    const cpu0 = leader.last!.cpuMs;
    const membersCpu0 = procs.slice(1).reduce((n, p) => n + p.last!.cpuMs, 0);
    const t0 = Date.now();
    const sent0 = procs.map((p) => ({ t: p.last!.t, sent: { ...p.last!.sent } }));
    const stats = options.serverCounters ? { read: options.serverCounters, close: () => undefined } : new RedisStatsReader(options.ports);
    const before = await stats.read().catch((error: unknown) => {
      stats.close();
      throw error;
    });
    let lagP99Ms = 0;
    const lagWatch = setInterval(() => {
      for (const p of procs) lagP99Ms = Math.max(lagP99Ms, p.last?.lagP99Ms ?? 0);
    }, reportEvery);
    await delay(options.windowMs);
    clearInterval(lagWatch);
    const after = await stats.read().finally(() => stats.close());
    const sent1 = procs.map((p) => ({ t: p.last!.t, sent: { ...p.last!.sent } }));
    const t1 = Date.now();
    const cpu1 = leader.last!.cpuMs;
    const membersCpu1 = procs.slice(1).reduce((n, p) => n + p.last!.cpuMs, 0);
    const d = difference(before, after);
    const elapsed = t1 - t0;
    const intervals = elapsed / c.intervalMs;
    const perMember = (x: number): number => x / c.members / intervals;
    const commandsByName = Object.fromEntries(Object.entries(d.calls).sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, Math.round(perMember(n) * 1000) / 1000]));
    // Each process's count over the span of its own two status lines, scaled to the window.
    const sentTotals: Record<string, number> = {};
    procs.forEach((_, i) => {
      const span = sent1[i]!.t - sent0[i]!.t;
      if (span <= 0) return;
      for (const [op, n] of Object.entries(sent1[i]!.sent)) sentTotals[op] = (sentTotals[op] ?? 0) + ((n - (sent0[i]!.sent[op] ?? 0)) * elapsed) / span;
    });
    const sentByOperation = Object.fromEntries(Object.entries(sentTotals).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([op, n]) => [op, Math.round(perMember(n) * 1000) / 1000]));
    // Without a server to ask (etcd, PostgreSQL, NATS), the store's own counters are not read: NaN, not 0.
    const server = (x: number): number => (options.ports.length === 0 && !options.serverCounters ? Number.NaN : x);
    const cost = {
      commandsPerMemberInterval: perMember(Object.values(sentTotals).reduce((a, b) => a + b, 0)),
      sentByOperation,
      redisCallsPerMemberInterval: server(perMember(totalCalls(d))),
      lagP99Ms,
      commandsByName,
      bytesOutPerMemberInterval: server(perMember(d.outputBytes)),
      bytesInPerMemberInterval: server(perMember(d.inputBytes)),
      bytesOutPerSecond: server((d.outputBytes / elapsed) * 1000),
      leaderCpuPercent: ((cpu1 - cpu0) / elapsed) * 100,
      leaderCpuUsPerMemberInterval: ((cpu1 - cpu0) * 1000) / intervals / c.members,
      membersCpuPercent: ((membersCpu1 - membersCpu0) / elapsed) * 100,
    };
    progress(`    ${cost.commandsPerMemberInterval.toFixed(2)} commands sent (${Object.entries(sentByOperation).map(([op, n]) => `${op} ${n}`).join(', ')}; Redis counted ${cost.redisCallsPerMemberInterval.toFixed(2)} calls) and ${Math.round(cost.bytesOutPerMemberInterval)} bytes out per member per interval; leader CPU ${cost.leaderCpuPercent.toFixed(1)} %, the other members' processes ${cost.membersCpuPercent.toFixed(0)} % of one core; event-loop delay p99 ≤ ${Math.round(lagP99Ms)} ms`);

    // Failover with N members.
    let failoverMs: number | null = null;
    let allFollowMs: number | null = null;
    let halfFollowMs: number | null = null;
    const unforcedElections = procs.slice(1).reduce((n, p) => n + p.leaderLines.length, 0);
    const stillLeads = leader.last?.leading.includes(leaderId) === true;
    const note = stillLeads
      ? unforcedElections > 0
        ? `leadership moved to a worker member ${unforcedElections} time(s) and back before the kill`
        : undefined
      : `the leader process lost leadership on its own (${unforcedElections} election(s) among the workers); failover not measured`;
    // Also when the group did not converge: the failover of a group under that load is a figure too.
    if (stillLeads) {
      const atKill = procs.slice(1).map((p) => ({ ...p.last?.stats }));
      const warningsAtKill = procs.slice(1).map((p) => ({ ...p.last?.warnings }));
      const sentAtKill = procs.slice(1).reduce((n, p) => n + Object.values(p.last?.sent ?? {}).reduce((a, b) => a + b, 0), 0);
      const cpuAtKill = procs.slice(1).reduce((n, p) => n + (p.last?.cpuMs ?? 0), 0);
      const killedAt = Date.now();
      leader.tracked.child.kill('SIGKILL');
      await leader.tracked.exited;
      const workers = procs.slice(1);
      const limit = 10 * c.timeoutMs + 10_000;
      const sum = (of: (p: Proc, i: number) => Record<string, number> | undefined): Record<string, number> => {
        const total: Record<string, number> = {};
        workers.forEach((p, i) => {
          for (const [k, n] of Object.entries(of(p, i) ?? {})) total[k] = (total[k] ?? 0) + n;
        });
        return total;
      };
      const statsAtKill = sum((_, i) => atKill[i] as Record<string, number>);
      /** Each counter's growth since the kill, summed over the workers. */
      const sinceKill = (): [string, number][] => Object.entries(sum((p) => p.last?.stats)).map(([k, n]): [string, number] => [k, n - (statsAtKill[k] ?? 0)]).filter(([, n]) => n !== 0);
      // Every T until all follow: the roles, whom the members follow, and what they did since the kill.
      const timeline = setInterval(() => {
        const moved = sinceKill().filter(([k]) => /^(candidacy|claim|elected|publish|list\.)/.test(k)).map(([k, n]) => `${k} +${n}`);
        const following = Object.entries(sum((p) => p.last?.following)).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([id, n]) => `${id} ${n}`);
        const lagMax = Math.max(...workers.map((p) => p.last?.lagMaxMs ?? 0));
        progress(`    +${Math.round((Date.now() - killedAt) / 1000)} s: ${JSON.stringify(sum((p) => p.last?.roles))}; event-loop delay max ${Math.round(lagMax)} ms; following ${following.join(', ')}; ${moved.join(', ')}`);
      }, c.timeoutMs);
      const elected = await waitFor(() => workers.some((p) => p.leaderLines.some((l) => l.t >= killedAt)), limit, 20);
      if (elected) {
        const first = workers.flatMap((p) => p.leaderLines).filter((l) => l.t >= killedAt).sort((a, b) => a.t - b.t)[0]!;
        failoverMs = first.t - killedAt;
        const all = await waitFor(() => workers.every((p) => p.last !== undefined && p.last.t > first.t && p.last.following[first.id] === p.count), limit);
        if (all) {
          allFollowMs = Math.max(...workers.map((p) => p.last!.followSince[first.id]!.last)) - killedAt;
          const medians = workers.map((p) => p.last!.followSince[first.id]!.median).sort((a, b) => a - b);
          halfFollowMs = medians[Math.floor(medians.length / 2)]! - killedAt;
          // What the members asked of the store, and their CPU, from the kill until all followed.
          const span = Date.now() - killedAt;
          const sentSince = procs.slice(1).reduce((n, p) => n + Object.values(p.last?.sent ?? {}).reduce((a, b) => a + b, 0), 0) - sentAtKill;
          const cpuSince = procs.slice(1).reduce((n, p) => n + (p.last?.cpuMs ?? 0), 0) - cpuAtKill;
          progress(`    from the kill until all followed (${span} ms): ${(sentSince / (c.members - 1) / (span / c.intervalMs)).toFixed(2)} commands per member per interval; the members' processes ${((cpuSince / span) * 100).toFixed(0)} % of one core`);
          // Where the last follow: each process's median and last, from the kill.
          progress(`    followed, median / last by process: ${workers.map((p) => `${p.count}: ${p.last!.followSince[first.id]!.median - killedAt} / ${p.last!.followSince[first.id]!.last - killedAt}`).join(', ')} ms`);
        }
        else progress(`    not all follow ${first.id}: ${workers.map((p) => JSON.stringify(p.last?.following ?? {})).join(' ')}`);
      }
      clearInterval(timeline);
      if (allFollowMs === null || failoverMs === null || allFollowMs > c.timeoutMs + 2 * c.intervalMs) {
        // What the members did instead, for whoever has to find out why.
        progress(`    roles: ${workers.map((p) => JSON.stringify(p.last?.roles ?? {})).join(' ')}`);
        progress(`    since the kill: ${sinceKill().sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `${k} ${n}`).join(', ')}`);
        const warned = sum((p) => p.last?.warnings);
        const warnedAtKill = sum((_, i) => warningsAtKill[i] as Record<string, number>);
        progress(`    warnings logged since the kill: ${JSON.stringify(Object.fromEntries(Object.entries(warned).map(([k, n]) => [k, n - (warnedAtKill[k] ?? 0)]).filter(([, n]) => n !== 0)))}`);
        const changes = workers[0]!.roleLines.filter((l) => l.t >= killedAt).slice(0, 30);
        const electedId = workers.flatMap((p) => p.leaderLines).find((l) => l.t >= killedAt)?.id;
        const traced = workers[0]!.opLines.some((l) => l.id === electedId) ? electedId : workers[0]!.roleLines[0]?.id;
        const first = workers[0]!.opLines.filter((l) => l.t >= killedAt + c.timeoutMs - c.intervalMs && l.id === traced).slice(0, 40);
        progress(`    store operations of ${first[0]?.id ?? 'the first member'}: ${first.map((l) => `+${l.t - killedAt} ${l.op} ${l.key} ${l.ms} ms ${l.outcome}`).join('; ')}`);
        progress(`    the first members of ${workers[0]!.roleLines[0]?.id.split('-')[0] ?? 'the first worker'}: ${changes.map((l) => `+${l.t - killedAt} ${l.id} ${l.role} (${l.reason})`).join('; ')}`);
      }
      progress(`    failover ${failoverMs ?? '—'} ms, half follow after ${halfFollowMs ?? '—'} ms, all follow after ${allFollowMs ?? '—'} ms`);
    }
    if (unforcedElections > 0) {
      // Why the leader process let go: its role changes, and its store operations before the first.
      const lost = leader.roleLines.find((l) => l.role !== 'leader' && l.t > spawnedAt);
      progress(`    the leader process: ${leader.roleLines.filter((l) => l.t > spawnedAt).slice(0, 12).map((l) => `+${l.t - spawnedAt} ${l.role} (${l.reason})`).join('; ')}`);
      const stands = procs.slice(1).flatMap((p) => [...p.standLines, ...p.roleLines.filter((l) => l.role === 'candidate')]).filter((l) => l.t > spawnedAt && (lost === undefined || l.t <= lost.t)).sort((a, b) => a.t - b.t);
      progress(`    stands before: ${stands.slice(0, 30).map((l) => `+${l.t - spawnedAt} ${l.id} (${l.reason})`).join('; ')}`);
      const allStands = procs.slice(1).flatMap((p) => [...p.standLines, ...p.roleLines.filter((l) => l.role === 'candidate')]);
      const standsOf = (id: string): string => allStands.filter((l) => l.id === id).map((l) => `+${l.t - spawnedAt} ${l.reason}`).join(', ');
      progress(`    elections: ${procs.slice(1).flatMap((p) => p.leaderLines).sort((a, b) => a.t - b.t).map((l) => `+${l.t - spawnedAt} ${l.id} (stood ${standsOf(l.id) || 'not among the first 200 stands'})`).join('; ')}`);
      if (lost && leader.opsAtLoss) progress(`    its store operations before +${lost.t - spawnedAt}: ${leader.opsAtLoss.map((l) => `+${l.t - spawnedAt} ${l.op} ${l.key} ${l.ms} ms ${l.outcome}`).join('; ')}`);
    }
    const fullNote = stillLeads && failoverMs === null ? `no member reported leading within ${10 * c.timeoutMs + 10_000} ms of the kill` : note;
    if (fullNote) progress(`    note: ${fullNote}`);
    return { ...base, ...cost, convergeMs, listsTakenIn, failoverMs, allFollowMs, halfFollowMs, unforcedElections, ...(fullNote && { note: fullNote }) };
  } catch (error) {
    progress(`  scale ${c.store} N=${c.members}: ${(error as Error).message}`);
    return { ...base, ...empty, error: (error as Error).message };
  } finally {
    await Promise.all(procs.map((p) => terminate(p.tracked, 20_000)));
  }
}
