/**
 * The 5-process election check every store set-up goes through (`test/stores-*.test.ts`), on real
 * `roster node --json` processes at I = 100 ms, T = 500 ms: one leader; a SIGKILLed leader replaced
 * within T + 2I (with slack for a loaded machine) by one with a higher fencing token; a sixth
 * node's join seen by all; a hand-over on resign() (SIGUSR2: the resigned process stays a member)
 * and on SIGTERM (it exits 0); never two processes reporting `leader` at once. Every figure is read
 * from what the processes print (the `ts` of their JSON lines).
 *
 * The groups the store tests drive step by step: {@link ElectionGroup} (one group per test, on
 * etcd and NATS) and {@link DatabaseGroup} (one group through a file's tests, with the database's
 * own faults, on PostgreSQL and MariaDB).
 */
import { expect } from 'vitest';
import type { RosterNodeProcess } from './rosterNode.js';
import { startRoster, until } from './rosterNode.js';

export const SCENARIO_I = 100;
export const SCENARIO_T = 500;
/** Slack for a loaded 2-core machine: process scheduling, printing, polling. */
const SLACK = 500;
const GENEROUS = 15_000;

/** What {@link runElectionScenario} measured, in ms. */
export interface ElectionFigures {
  readonly formedMs: number;
  readonly failoverMs: number;
  readonly joinMs: number;
  readonly resignMs: number;
  readonly leaveMs: number;
}

/**
 * Runs the scenario on processes made by `start(id)` (each a `roster node --json … --interval 100
 * --timeout 500` on the store under test, in one group); kill them all afterwards (`killAllNodes`).
 */
export async function runElectionScenario(start: (id: string) => RosterNodeProcess, prefix: string): Promise<ElectionFigures> {
  const nodes: RosterNodeProcess[] = [];
  const killedAt = new Map<RosterNodeProcess, number>();
  const spawn = (id: string): RosterNodeProcess => {
    const p = start(id);
    nodes.push(p);
    return p;
  };
  const alive = (): RosterNodeProcess[] => nodes.filter((p) => p.alive && !killedAt.has(p));
  const describeAll = (): string => nodes.map((p) => p.describe().slice(-2500)).join('\n');
  const converged = (): boolean => {
    const live = alive();
    const leader = live[0]?.leader;
    if (!leader) return false;
    const holder = live.find((p) => idOf(p) === leader.id);
    if (!holder || holder.role !== 'leader') return false;
    const ids = live.map(idOf).sort().join(',');
    return live.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token && [...p.members].sort().join(',') === ids);
  };
  const leaderProcess = (): RosterNodeProcess => {
    const leader = alive()[0]!.leader!;
    return alive().find((p) => idOf(p) === leader.id)!;
  };
  const becameLeaderAt = (p: RosterNodeProcess, since: number): number => p.events.find((e) => e.event === 'role' && e.role === 'leader' && e.ts >= since)!.ts;

  for (let i = 0; i < 5; i++) spawn(`${prefix}${i}`);
  const formedMs = await until(converged, GENEROUS, () => `5 nodes never converged:\n${describeAll()}`);
  expect(alive().filter((p) => p.role === 'leader')).toHaveLength(1);

  const old = leaderProcess();
  const tokenBefore = old.leader!.token;
  const t0 = Date.now();
  killedAt.set(old, t0);
  old.signal('SIGKILL');
  await until(converged, GENEROUS, () => `no new leader after the leader's SIGKILL:\n${describeAll()}`);
  const failoverMs = becameLeaderAt(leaderProcess(), t0) - t0;
  expect(leaderProcess().leader!.token).toBeGreaterThan(tokenBefore);

  spawn(`${prefix}5`);
  const joinMs = await until(converged, GENEROUS, () => `the join of ${prefix}5 was not seen by all:\n${describeAll()}`);

  const resigning = leaderProcess();
  const t1 = Date.now();
  resigning.signal('SIGUSR2');
  await until(() => converged() && leaderProcess() !== resigning, GENEROUS, () => `no other leader after resign():\n${describeAll()}`);
  const resignMs = becameLeaderAt(leaderProcess(), t1) - t1;
  expect(resigning.events.some((e) => e.event === 'role' && e.ts >= t1 && e.role === 'follower' && e.reason === 'resigned'), describeAll()).toBe(true);
  expect(alive()).toContain(resigning);

  const leaving = leaderProcess();
  const t2 = Date.now();
  leaving.signal('SIGTERM');
  expect(await leaving.exited).toEqual({ code: 0, signal: null });
  await until(converged, GENEROUS, () => `no leader after the graceful stop:\n${describeAll()}`);
  const leaveMs = becameLeaderAt(leaderProcess(), t2) - t2;

  expect(failoverMs).toBeLessThanOrEqual(SCENARIO_T + 2 * SCENARIO_I + SLACK);
  expect(resignMs).toBeLessThanOrEqual(SCENARIO_T + SLACK);
  expect(dualLeadership(nodes, idOf, killedAt), describeAll()).toEqual([]);
  return { formedMs: Math.round(formedMs), failoverMs, joinMs: Math.round(joinMs), resignMs, leaveMs };
}

/** The pairs of processes that reported `leader` at once (a killed one's span ends at its kill). */
function dualLeadership(nodes: readonly RosterNodeProcess[], idOf: (p: RosterNodeProcess) => string, killedAt: ReadonlyMap<RosterNodeProcess, number>): string[] {
  const spans: { id: string; from: number; to: number }[] = [];
  for (const p of nodes) {
    let from: number | undefined;
    for (const e of p.events) {
      if (e.event !== 'role' && e.event !== 'stopped') continue;
      const leading = e.event === 'role' && e.role === 'leader';
      if (leading && from === undefined) from = e.ts;
      if (!leading && from !== undefined) {
        spans.push({ id: idOf(p), from, to: e.ts });
        from = undefined;
      }
    }
    if (from !== undefined) spans.push({ id: idOf(p), from, to: killedAt.get(p) ?? Date.now() });
  }
  return spans.flatMap((a, i) => spans.slice(i + 1).filter((b) => a.id !== b.id && a.from < b.to && b.from < a.to).map((b) => `${a.id}+${b.id}`));
}

/** The figures as one line for the test output. */
export function describeFigures(label: string, f: ElectionFigures): string {
  return (
    `${label}: 5 nodes agreed ${f.formedMs} ms after the spawns; failover ${f.failoverMs} ms after SIGKILL of the leader (T + 2I = ${SCENARIO_T + 2 * SCENARIO_I}); ` +
    `join seen by all in ${f.joinMs} ms; hand-over ${f.resignMs} ms after resign (SIGUSR2), ${f.leaveMs} ms after SIGTERM`
  );
}

/** What a `role` line holds. */
export type RoleLine = { ts: number; role: string; reason: string };

/** The `role` lines of `p`. */
export const roles = (p: RosterNodeProcess): RoleLine[] => p.events.filter((e) => e.event === 'role') as unknown as RoleLine[];

/** Options of {@link ElectionGroup}. */
export interface ElectionGroupOptions {
  /** The `--store` URL of every process. */
  readonly url: string;
  /** The `--group` of every process. */
  readonly group: string;
  /** I and T, in ms. */
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Added to the protocol's bounds, for a loaded 2-core machine. */
  readonly slackMs: number;
}

/**
 * The `roster node --json` processes of one group on one store URL, with what the test did to them
 * (`test/stores-etcd.test.ts`, `test/stores-nats.test.ts`): wait until they settle, kill the
 * leader, make it resign, and read the figures from the `ts` of their lines.
 */
export class ElectionGroup {
  readonly nodes: RosterNodeProcess[] = [];
  /** When each process was SIGKILLed: its last `leader` line holds until then. */
  readonly killedAt = new Map<RosterNodeProcess, number>();
  /** Processes the test counts out of the group (a follower that left). */
  readonly gone = new Set<RosterNodeProcess>();
  readonly #o: ElectionGroupOptions;

  constructor(options: ElectionGroupOptions) {
    this.#o = options;
  }

  start(id: string): RosterNodeProcess {
    const { url, group, intervalMs, timeoutMs } = this.#o;
    const p = startRoster('node', '--json', '--store', url, '--group', group, '--env', 'test', '--id', id, '--interval', String(intervalMs), '--timeout', String(timeoutMs));
    this.nodes.push(p);
    return p;
  }

  get live(): RosterNodeProcess[] {
    return this.nodes.filter((p) => p.alive && !this.killedAt.has(p) && !this.gone.has(p));
  }

  leaders(): RosterNodeProcess[] {
    return this.live.filter((p) => p.role === 'leader');
  }

  /** One live process reports leader and every live one follows it and lists them all. */
  settled(): boolean {
    const live = this.live;
    const leaders = this.leaders();
    if (leaders.length !== 1) return false;
    const id = leaders[0]!.events[0]!.id;
    return live.every((p) => p.leader?.id === id && p.members.length === live.length);
  }

  waitSettled(boundMs = 20 * this.#o.timeoutMs): Promise<number> {
    return until(() => this.settled(), boundMs, () => this.describe());
  }

  kill(p: RosterNodeProcess): number {
    const at = Date.now();
    this.killedAt.set(p, at);
    p.signal('SIGKILL');
    return at;
  }

  /** The first `role: leader` line of any process at or after `from`, in ms since the epoch. */
  firstLeaderSince(from: number): number | undefined {
    const ts = this.nodes.flatMap((p) => roles(p).filter((r) => r.role === 'leader' && r.ts >= from).map((r) => r.ts));
    return ts.length === 0 ? undefined : Math.min(...ts);
  }

  /** The longest time two processes both reported `leader` (0 when never), from every stream's lines. */
  doubleLeaderMs(): number {
    const spans = this.nodes.flatMap((p, owner) => leaderSpans(p, this.killedAt.get(p)).map(([from, to]) => ({ owner, from, to })));
    let worst = 0;
    for (const a of spans) for (const b of spans) if (a.owner < b.owner) worst = Math.max(worst, Math.min(a.to, b.to) - Math.max(a.from, b.from));
    return worst;
  }

  /**
   * Starts `id` and resolves with the time from its first line until every live process lists it,
   * with one leader among them (`'one leader'`), or settled on it (`'settled'`).
   */
  async join(id: string, led: 'one leader' | 'settled' = 'one leader'): Promise<number> {
    const { timeoutMs: T } = this.#o;
    const p = this.start(id);
    await until(() => p.events.length > 0, 10_000, () => p.describe());
    const from = p.events[0]!.ts;
    const leading = (): boolean => (led === 'settled' ? this.settled() : this.leaders().length === 1);
    await until(() => leading() && this.live.every((n) => n.members.includes(id)), 20 * T, () => this.describe());
    return Date.now() - from;
  }

  /** SIGKILLs the leader; another leads within T + 2I (+ slack); resolves with that time, once settled. */
  async failOverAfterKill(): Promise<number> {
    const { intervalMs: I, timeoutMs: T, slackMs } = this.#o;
    const old = this.leaders()[0]!;
    const killedAt = this.kill(old);
    await until(() => this.leaders().length === 1, 10 * T, () => this.describe());
    const failover = this.firstLeaderSince(killedAt)! - killedAt;
    expect(failover, this.describe()).toBeLessThanOrEqual(T + 2 * I + slackMs);
    await this.waitSettled();
    return failover;
  }

  /**
   * resign() (SIGUSR2) of the leader: another leads within T (+ slack), and the resigned process
   * stays, following it; resolves with the hand-over time.
   */
  async handOverOnResign(): Promise<number> {
    const { timeoutMs: T, slackMs } = this.#o;
    const resigning = this.leaders()[0]!;
    const resignAt = Date.now();
    resigning.signal('SIGUSR2');
    await until(() => this.leaders().length === 1 && this.leaders()[0] !== resigning, 10 * T, () => this.describe());
    const resign = this.firstLeaderSince(resignAt)! - resignAt;
    expect(resign, this.describe()).toBeLessThanOrEqual(T + slackMs);
    expect(roles(resigning).some((r) => r.ts >= resignAt && r.role === 'follower' && r.reason === 'resigned'), this.describe()).toBe(true);
    await this.waitSettled();
    expect(resigning.alive).toBe(true);
    return resign;
  }

  describe(): string {
    return this.nodes.map((p) => p.describe()).join('\n\n');
  }
}

/** The spans during which `p` reported `leader`: from its leader line to its next role line, its kill, its exit or now. */
function leaderSpans(p: RosterNodeProcess, killedAt: number | undefined): [number, number][] {
  const spans: [number, number][] = [];
  const lines = p.events.filter((e) => e.event === 'role' || e.event === 'stopped') as unknown as { ts: number; event: string; role?: string }[];
  for (const [i, line] of lines.entries()) {
    if (line.event !== 'role' || line.role !== 'leader') continue;
    const end = lines[i + 1]?.ts ?? killedAt ?? Date.now();
    spans.push([line.ts, end]);
  }
  return spans;
}

/** Options of {@link DatabaseGroup}. */
export interface DatabaseGroupOptions {
  /** The `--store` URL of node `id`. */
  readonly storeUrl: (id: string) => string;
  /** The `--group` of every node. */
  readonly group: string;
  /** I and T, in ms. */
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** How long any one wait may take. */
  readonly waitMs: number;
  /** Whether {@link DatabaseGroup.storeFault} ends with a join, and its figure. */
  readonly joinAfterFault: boolean;
}

/**
 * One group of `roster node --json` processes (`n1`, `n2`, …) on a database store, shared by the
 * tests of one file (`test/stores-postgres.test.ts`, `test/stores-mysql.test.ts`): each test takes
 * the group as the one before left it. The figures it measures are collected in {@link figures};
 * the bounds it asserts are generous (the machine is shared), the protocol's are in the figures.
 */
export class DatabaseGroup {
  /** Every node of the group, in start order (dead ones included). */
  readonly nodes: RosterNodeProcess[] = [];
  readonly figures: string[] = [];
  readonly killedAt = new Map<RosterNodeProcess, number>();
  readonly #o: DatabaseGroupOptions;
  #ids = 0;

  constructor(options: DatabaseGroupOptions) {
    this.#o = options;
  }

  startNode(): RosterNodeProcess {
    const { storeUrl, group, intervalMs, timeoutMs } = this.#o;
    const id = `n${++this.#ids}`;
    const p = startRoster('node', '--store', storeUrl(id), '--group', group, '--env', 'test', '--id', id, '--interval', String(intervalMs), '--timeout', String(timeoutMs), '--json');
    this.nodes.push(p);
    return p;
  }

  readonly alive = (): RosterNodeProcess[] => this.nodes.filter((p) => p.alive);
  readonly describeAll = (): string => this.nodes.map((p) => `${p.alive ? 'alive' : `exited ${p.child.exitCode ?? p.child.signalCode}`}: ${p.describe()}`).join('\n');

  /** The live nodes follow one leader, which is one of them and says so, and each sees every live node as a member. */
  readonly agreed = (): boolean => {
    const group = this.alive();
    const leader = group[0]?.leader;
    if (!leader) return false;
    const want = group.map(idOf).sort().join(',');
    const self = group.find((p) => idOf(p) === leader.id);
    return self?.role === 'leader' && group.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token && p.members.join(',') === want);
  };

  /** The live nodes follow one leader, which is one of them and says so (member lists aside). */
  readonly oneLeader = (): boolean => {
    const group = this.alive();
    const leader = group[0]?.leader;
    if (!leader) return false;
    const self = group.find((p) => idOf(p) === leader.id);
    return self?.role === 'leader' && group.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token);
  };

  /** Waits until {@link agreed}. */
  async waitAgreed(): Promise<number> {
    return until(this.agreed, this.#o.waitMs, this.describeAll);
  }

  currentLeader(): RosterNodeProcess {
    const leader = this.alive()[0]!.leader!;
    return this.alive().find((p) => idOf(p) === leader.id)!;
  }

  /** Overlaps of two processes' `leader` intervals (a process SIGKILLed while leader ends at its kill). */
  twoLeadersAtOnce(): string[] {
    const spans = this.nodes.flatMap((p) =>
      leaderIntervals(p).map(([from, to]) => ({ id: idOf(p), from, to: Math.min(to, this.killedAt.get(p) ?? Number.POSITIVE_INFINITY) })),
    );
    const overlaps: string[] = [];
    for (const a of spans) for (const b of spans) if (a.id < b.id && a.from < b.to && b.from < a.to) overlaps.push(`${a.id} and ${b.id}`);
    return overlaps;
  }

  /** Starts one node and resolves to the ms until every live node lists it. */
  async join(): Promise<number> {
    const p = this.startNode();
    const started = Date.now();
    await until(() => p.events.length > 0 && this.agreed(), this.#o.waitMs, this.describeAll);
    return Date.now() - started;
  }

  /** When (event time) the last of `group` reported a leader with a token above `token`. */
  seenBy(group: readonly RosterNodeProcess[], token: bigint): number {
    return Math.max(...group.map((p) => p.events.find((e) => e.event === 'leader' && e.token !== null && BigInt(e.token) > token)?.ts ?? Number.NaN));
  }

  /** The distinct (leader, token) pairs the live nodes reported after `since`. */
  leadersSince(since: number): Set<string> {
    const seen = new Set<string>();
    for (const p of this.alive()) for (const e of p.events) if (e.event === 'leader' && e.ts >= since && e.leader !== null) seen.add(`${e.leader}@${e.token}`);
    return seen;
  }

  /** Waits until the live nodes follow a leader other than `old`, with a higher token. */
  async #waitNewLeader(old: { id: string; token: bigint }): Promise<void> {
    const alive = this.alive;
    await until(() => alive().every((p) => p.leader != null && p.leader.id !== old.id && p.leader.token > old.token && p.leader.id === alive()[0]!.leader?.id), this.#o.waitMs, this.describeAll);
  }

  /** Five nodes elect one leader and all see the five members. */
  async elect(): Promise<void> {
    for (let i = 0; i < 5; i++) this.startNode();
    const ms = await this.waitAgreed();
    this.figures.push(`5 nodes agreed ${ms} ms after the last spawn`);
    expect(this.alive().filter((p) => p.role === 'leader')).toHaveLength(1);
  }

  /** SIGKILL of the leader: the others fail over within 3 (T + 2I), and a join is seen by all. */
  async failOverAfterKill(): Promise<void> {
    const { intervalMs: I, timeoutMs: T } = this.#o;
    const victim = this.currentLeader();
    const old = victim.leader!;
    const killed = Date.now();
    victim.signal('SIGKILL');
    this.killedAt.set(victim, killed);
    await victim.exited;
    await this.#waitNewLeader(old);
    const failoverMs = this.seenBy(this.alive(), old.token) - killed;
    this.figures.push(`failover after SIGKILL of the leader: ${failoverMs} ms (T + 2I = ${T + 2 * I} ms)`);
    expect(failoverMs).toBeLessThan(3 * (T + 2 * I));
    await this.waitAgreed();
    this.figures.push(`join seen by all: ${await this.join()} ms`);
  }

  /** SIGUSR2 makes the leader resign: another leads within 3 (T + 2I), and the resigned node stays a member. */
  async handOverOnResign(): Promise<void> {
    const { intervalMs: I, timeoutMs: T } = this.#o;
    await this.waitAgreed();
    const leader = this.currentLeader();
    const old = leader.leader!;
    const sent = Date.now();
    leader.signal('SIGUSR2');
    await this.#waitNewLeader(old);
    const handOverMs = this.seenBy(this.alive().filter((p) => p !== leader), old.token) - sent;
    this.figures.push(`hand-over on resign (SIGUSR2): ${handOverMs} ms`);
    expect(handOverMs).toBeLessThan(3 * (T + 2 * I));
    expect(leader.events.some((e) => e.event === 'role' && e.ts >= sent && e.role === 'follower' && e.reason === 'resigned'), this.describeAll()).toBe(true);
    // Still running, following the new leader, and listed by it.
    await this.waitAgreed();
    expect(this.alive()).toContain(leader);
  }

  /**
   * A store fault on the agreed group: `fault()` runs, `recover()` brings the store back; measures
   * when the leader stopped reporting `leader` (if it did), and when the group agreed again after the
   * store's return; checks one leader or one hand-over (and, with `joinAfterFault`, that a join works after).
   */
  async storeFault(name: string, fault: () => Promise<void>, recover: () => Promise<void>): Promise<void> {
    const { intervalMs: I, timeoutMs: T, waitMs } = this.#o;
    await this.waitAgreed();
    const leader = this.currentLeader();
    const before = leader.leader!;
    const faultAt = Date.now();
    await fault();
    await recover();
    const returnedAt = Date.now();
    await until(this.oneLeader, waitMs, this.describeAll);
    const leaderMs = Date.now() - returnedAt;
    await this.waitAgreed();
    const againMs = Date.now() - returnedAt;
    const lapse = leader.events.find((e) => e.event === 'role' && e.ts >= faultAt && e.previous === 'leader');
    const lapseMs = lapse === undefined ? undefined : lapse.ts - faultAt;
    const handovers = [...this.leadersSince(faultAt)].filter((l) => l !== `${before.id}@${before.token}`);
    this.figures.push(
      `${name}: lapse reported ${lapseMs === undefined ? 'never (kept leading)' : `${lapseMs} ms`} after the fault; one leader followed by all ${leaderMs} ms after the store's return, every list complete after ${againMs} ms; ${handovers.length} new leader(s)`,
    );
    expect(handovers.length, this.describeAll()).toBeLessThanOrEqual(1);
    expect(leaderMs).toBeLessThan(3 * (T + 2 * I));
    // A leader that cannot reach the store stops reporting `leader` before another can be elected (T).
    if (lapseMs !== undefined) expect(lapseMs).toBeLessThan(T + 300);
    if (this.#o.joinAfterFault) this.figures.push(`${name}: join after it seen by all in ${await this.join()} ms`);
  }
}

/** The id a process printed on its first line (`?` before it has). */
export function idOf(p: RosterNodeProcess): string {
  return p.events[0]?.id ?? '?';
}

/** The [from, to) intervals (event time) in which `p` reported `leader`. */
function leaderIntervals(p: RosterNodeProcess): [number, number][] {
  const out: [number, number][] = [];
  let since: number | undefined;
  for (const e of p.events) {
    if (e.event !== 'role') continue;
    if (e.role === 'leader' && since === undefined) since = e.ts;
    else if (e.role !== 'leader' && since !== undefined) {
      out.push([since, e.ts]);
      since = undefined;
    }
  }
  if (since !== undefined) out.push([since, Number.POSITIVE_INFINITY]);
  return out;
}
