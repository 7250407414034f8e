/**
 * A rolling deploy of 5 real processes, one at a time, today (every process of priority 0) and
 * with priorities (the new version outranks the old, `priorityFromVersion`): how many times the
 * leader changes, the longest time without a leader, and how many times the leader's work
 * (`whileLeader()`, winding down in 50 ms) is started again. Redis, I = 100 ms, T = 500 ms.
 *
 *   pnpm --filter @roster/integration-tests exec vitest run --config vitest.measure.config.ts rolling-deploy.measure.ts
 *
 * Each deploy stops a process (SIGTERM: graceful) and starts it again on the new version, then
 * waits until every process follows one leader again and 2T more (readiness) before the next. Two orders: a
 * follower first, then the leader, then the rest; and the leader first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { priorityFromVersion } from '@roster/election';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployFigures, type DeployedProcess } from './support/rollingDeploy.js';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { until } from './support/rosterNode.js';

const I = 100;
const T = 500;
const IDS = ['n1', 'n2', 'n3', 'n4', 'n5'];
const ROUNDS = Number(process.env.ROSTER_ROLLING_ROUNDS ?? 3);
const SCRIPT = fileURLToPath(new URL('./support/leaderWorkNode.mjs', import.meta.url));

interface Line {
  readonly t: number;
  readonly event: string;
  readonly role?: string;
  readonly leader?: string | null;
}

/** One service process (support/leaderWorkNode.mjs). */
class Service {
  readonly child: ChildProcess;
  readonly lines: Line[] = [];
  endedAt: number | undefined;
  #partial = '';
  constructor(
    readonly label: string,
    id: string,
    url: string,
    env: string,
    priority: number,
  ) {
    this.child = spawn(process.execPath, [SCRIPT, '--url', url, '--env', env, '--id', id, '--wind-down', '50', '--interval', String(I), '--timeout', String(T), '--priority', String(priority)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (this.#partial + chunk.toString()).split('\n');
      this.#partial = parts.pop()!;
      for (const p of parts) this.lines.push(JSON.parse(p) as Line);
    });
    this.child.once('exit', () => (this.endedAt = performance.timeOrigin + performance.now()));
  }
  last(event: string): Line | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) if (this.lines[i]!.event === event) return this.lines[i];
    return undefined;
  }
  get role(): string | undefined {
    return this.last('role')?.role;
  }
  get leader(): string | null | undefined {
    return this.last('leader')?.leader;
  }
  exited(): Promise<void> {
    return this.endedAt !== undefined ? Promise.resolve() : new Promise((resolve) => this.child.once('exit', () => resolve()));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

interface Outcome {
  readonly changes: number;
  readonly longestGapMs: number;
  readonly workStarts: number;
  readonly overlaps: number;
}

/** One deploy of 5 services from 1.0.0 to 1.1.0: priorities from the versions, or 0 for both (today). */
async function deploy(url: string, withPriorities: boolean, leaderFirst: boolean): Promise<Outcome> {
  const env = `m${Math.random().toString(36).slice(2, 8)}`;
  const all: Service[] = [];
  const live = new Map<string, Service>();
  const start = (id: string, version: string) => {
    const count = all.filter((s) => s.label.split('#')[0] === id).length;
    const s = new Service(count === 0 ? id : `${id}#${count + 1}`, id, url, env, withPriorities ? priorityFromVersion(version) : 0);
    all.push(s);
    live.set(id, s);
    return s;
  };
  const converged = () => {
    const leaders = [...live.entries()].filter(([, s]) => s.role === 'leader');
    return leaders.length === 1 && [...live.values()].every((s) => s.leader === leaders[0]![0]);
  };
  try {
    for (const id of IDS) start(id, '1.0.0');
    await until(converged, 60_000, () => 'the group did not converge');
    await sleep(2 * T);
    const leaderId = [...live.entries()].find(([, s]) => s.role === 'leader')![0];
    const followers = IDS.filter((id) => id !== leaderId);
    const order = leaderFirst ? [leaderId, ...followers] : [followers[0]!, leaderId, ...followers.slice(1)];
    const from = now();
    for (const id of order) {
      const old = live.get(id)!;
      old.child.kill('SIGTERM');
      await old.exited();
      const s = start(id, '1.1.0');
      await until(() => s.lines.some((l) => l.event === 'started') && converged(), 30_000, () => 'no convergence after a restart');
      await sleep(2 * T);
    }
    await until(converged, 30_000, () => 'no convergence at the end');
    await sleep(2 * T);
    const end = now();
    const processes: DeployedProcess[] = all.map((s) => ({ label: s.label, roles: s.lines.flatMap((l) => (l.event === 'role' ? [{ t: l.t, role: l.role! }] : [])), endedAt: s.endedAt }));
    const figures = deployFigures(processes, from, end);
    const workStarts = all.reduce((n, s) => n + s.lines.filter((l) => l.event === 'work-started' && l.t > from).length, 0);
    return { changes: figures.successors.length, longestGapMs: Math.round(figures.longestGapMs), workStarts, overlaps: figures.overlaps.length };
  } finally {
    for (const s of all) s.child.kill('SIGKILL');
    await Promise.all(all.map((s) => s.exited()));
  }
}

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('rolling deploy of 5 processes (Redis, I = 100 ms, T = 500 ms)', () => {
  it('leadership changes, longest gap without a leader and leader-work restarts, today and with priorities', async () => {
    const rows: string[] = [];
    for (const leaderFirst of [false, true]) {
      for (const withPriorities of [false, true]) {
        const outcomes: Outcome[] = [];
        for (let r = 0; r < ROUNDS; r++) outcomes.push(await deploy(redis.url, withPriorities, leaderFirst));
        const list = (f: (o: Outcome) => number) => outcomes.map(f).join(', ');
        rows.push(
          `| ${leaderFirst ? 'leader first' : 'a follower, then the leader'} | ${withPriorities ? 'priorities (1.0.0 → 1.1.0)' : 'today (all priority 0)'} | ${list((o) => o.changes)} | ${list((o) => o.longestGapMs)} | ${list((o) => o.workStarts)} | ${list((o) => o.overlaps)} |`,
        );
        if (withPriorities) for (const o of outcomes) expect(o.changes).toBeLessThanOrEqual(leaderFirst ? 2 : 1);
      }
    }
    console.log(['| order | nodes | leader changes | longest gap (ms) | leader work started | overlaps |', '|---|---|---|---|---|---|', ...rows].join('\n'));
  });
});
