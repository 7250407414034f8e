import { createServer } from 'node:net';
import type { PrimaryEvent, PrimaryGetResult } from '@roster/cli';
import { Namespace } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { HeartbeatTable } from '@roster/primary';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * `roster primary run --json` and `roster primary get` as processes on a real redis-server and the
 * real clock, with generous bounds. Exit codes from docs/cli.md.
 */
const I = 100;
const T = 1200;
const WAIT = 15_000;
const LOST_PRIMARY = 4;
const NO_PRIMARY = 3;
const ENV = 'test';

let redis: RedisTestServer;
let kv: RedisKV;
beforeAll(async () => {
  redis = await startRedis();
  kv = await RedisKV.connect({ url: redis.url });
});
afterAll(async () => {
  await killAllNodes();
  await kv?.close();
  await redis?.stop();
});

/** Every contender started by a test, checked against the JSON contract after it. */
let started: RosterNodeProcess[] = [];
afterEach(async () => {
  await killAllNodes();
  for (const p of started) expectContract(p);
  started = [];
});

/** A fresh group per test, so tests never see one another's entries. */
function freshKey(): string {
  return `prim${Math.random().toString(36).slice(2, 8)}`;
}

function contend(key: string, utype: string, id: string, extra: string[] = []): RosterNodeProcess {
  const p = startRoster(
    'primary', 'run', '--store', redis.url, '--group', key, '--env', ENV, '--type', utype,
    '--id', id, '--endpoint', `${id}.local:8080`, '--interval', String(I), '--timeout', String(T), '--json', ...extra,
  );
  started.push(p);
  return p;
}

function events(p: RosterNodeProcess): PrimaryEvent[] {
  return p.events as unknown as PrimaryEvent[];
}

/** True while the last `acting` / `stopped-acting` line of `p` is `acting`. */
function isActing(p: RosterNodeProcess): boolean {
  const last = lastOf(events(p), (e) => e.event === 'acting' || e.event === 'stopped-acting');
  return last?.event === 'acting';
}

function lastOf<E>(list: readonly E[], predicate: (e: E) => boolean): E | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (predicate(list[i]!)) return list[i];
  return undefined;
}

function actingLines(p: RosterNodeProcess): Extract<PrimaryEvent, { event: 'acting' }>[] {
  return events(p).filter((e): e is Extract<PrimaryEvent, { event: 'acting' }> => e.event === 'acting');
}

/** `roster primary get --json` once. */
async function get(key: string, utype: string): Promise<{ code: number | null; result: PrimaryGetResult; stderr: string }> {
  const { exit, stdout, stderr } = await runRoster(['primary', 'get', '--store', redis.url, '--group', key, '--env', ENV, '--type', utype, '--timeout', String(T), '--json']);
  return { code: exit.code, result: JSON.parse(stdout) as PrimaryGetResult, stderr };
}

/** The store time of the latest heartbeat in `utype`'s entry, read straight from the table. */
async function lastHeartbeat(key: string, utype: string): Promise<{ id: string; timestamp: number }> {
  const found = await new HeartbeatTable({ store: kv, namespace: new Namespace(key, ENV), timeoutMs: T }).inspect(utype);
  if (found.state !== 'live' && found.state !== 'expired') throw new Error(`no entry for ${utype}: ${found.state}`);
  return { id: found.entry.id, timestamp: found.entry.timestamp };
}

/** Every stdout line is one JSON object in the documented shape; `started` first, `stopped` last. */
function expectContract(p: RosterNodeProcess): void {
  expect(p.lines.length, p.describe()).toBeGreaterThan(0);
  expect(p.events.length, `a stdout line is not JSON:\n${p.describe()}`).toBe(p.lines.length);
  const all = events(p);
  const utype = all[0]!.utype;
  expect(all[0], p.describe()).toMatchObject({ event: 'started', intervalMs: I, timeoutMs: T });
  let acting = false;
  for (const e of all) {
    expect(typeof e.ts).toBe('number');
    expect(Math.abs(e.ts - Date.now())).toBeLessThan(10 * 60_000);
    expect(typeof e.id).toBe('string');
    expect(e.utype).toBe(utype);
    switch (e.event) {
      case 'started':
        expect(e).toBe(all[0]);
        break;
      case 'primary':
        if (e.primary === null) expect(e.endpoint).toBeNull();
        break;
      case 'acting':
        expect(acting, `acting twice:\n${p.describe()}`).toBe(false);
        expect(Number.isSafeInteger(e.claimedAt)).toBe(true);
        acting = true;
        break;
      case 'stopped-acting':
        expect(acting, `stopped-acting without acting:\n${p.describe()}`).toBe(true);
        expect(['superseded', 'vanished', 'deadline', 'stopped']).toContain(e.reason);
        acting = false;
        break;
      case 'stopped':
        expect(e, p.describe()).toBe(all.at(-1));
        expect(acting, 'stopped while acting').toBe(false);
        break;
      default:
        throw new Error(`unknown event in ${JSON.stringify(e)}`);
    }
  }
}

function describeAll(ps: readonly RosterNodeProcess[]): () => string {
  return () => ps.map((p) => p.describe()).join('\n');
}

describe('roster primary run and get, on a real redis-server', () => {
  it('two contenders of one type and one of another: exactly one acts per type, and get resolves each type to it', async () => {
    const key = freshKey();
    const billing = [contend(key, 'billing', 'b1'), contend(key, 'billing', 'b2')];
    const [s1] = [contend(key, 'scheduler', 's1')];
    const all = [...billing, s1!];
    await until(() => billing.some(isActing) && s1!.alive && isActing(s1!), WAIT, describeAll(all));

    // Several timeouts' worth of heartbeats: still exactly one per type, and never the other.
    const primary = billing.find(isActing)!;
    const other = billing.find((p) => p !== primary)!;
    await new Promise((resolve) => setTimeout(resolve, 2 * T));
    expect(billing.filter(isActing), describeAll(all)()).toEqual([primary]);
    expect(actingLines(other), other.describe()).toEqual([]);
    expect(isActing(s1!)).toBe(true);
    const last = lastOf(events(other), (e) => e.event === 'primary');
    expect(last).toMatchObject({ primary: events(primary)[0]!.id, endpoint: `${events(primary)[0]!.id}.local:8080` });

    const billingNow = await get(key, 'billing');
    expect(billingNow.code, billingNow.stderr).toBe(0);
    expect(billingNow.result).toMatchObject({ utype: 'billing', state: 'live', primary: events(primary)[0]!.id, endpoint: `${events(primary)[0]!.id}.local:8080` });
    expect(billingNow.result.ageMs).toBeGreaterThanOrEqual(0);
    expect(billingNow.result.ageMs).toBeLessThanOrEqual(T);
    const schedulerNow = await get(key, 'scheduler');
    expect(schedulerNow.result).toMatchObject({ state: 'live', primary: 's1', endpoint: 's1.local:8080' });

    const human = await runRoster(['primary', 'get', '--store', redis.url, '--group', key, '--env', ENV, '--type', 'scheduler', '--timeout', String(T)]);
    expect(human.exit.code).toBe(0);
    expect(human.stdout).toMatch(/^primary of scheduler: s1 at s1\.local:8080 \(heartbeat \d+ ms ago\)$/);
  });

  it('a type nobody contends for has no primary: get exits 3 and says none', async () => {
    const { code, result } = await get(freshKey(), 'billing');
    expect(code).toBe(NO_PRIMARY);
    expect(result).toMatchObject({ utype: 'billing', state: 'empty', primary: null, endpoint: null, ageMs: null });
    const human = await runRoster(['primary', 'get', '--store', redis.url, '--group', freshKey(), '--env', ENV, '--type', 'billing']);
    expect(human.exit.code).toBe(NO_PRIMARY);
    expect(human.stdout).toBe('primary of billing: none');
  });

  it('the primary killed with SIGKILL is replaced more than T after its last heartbeat, and get follows', async () => {
    const key = freshKey();
    const pair = [contend(key, 'billing', 'k1'), contend(key, 'billing', 'k2')];
    await until(() => pair.some(isActing), WAIT, describeAll(pair));
    await new Promise((resolve) => setTimeout(resolve, 3 * I));
    const victim = pair.find(isActing)!;
    const heir = pair.find((p) => p !== victim)!;

    victim.signal('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    const last = await lastHeartbeat(key, 'billing');
    expect(last.id).toBe(events(victim)[0]!.id);

    const tookMs = await until(() => isActing(heir), WAIT, describeAll(pair));
    const acting = actingLines(heir)[0]!;
    // Store time: the heir's claim is written more than T after the victim's last heartbeat.
    expect(acting.claimedAt - last.timestamp).toBeGreaterThan(T);
    // Real time (redis-server runs on this machine, so its clock is ours): not before T after the
    // last heartbeat, and within T + 2I of the kill plus generous slack for process scheduling.
    expect(acting.ts).toBeGreaterThan(last.timestamp + T - 5);
    expect(acting.ts - killedAt).toBeLessThan(T + 2 * I + 3000);
    expect(tookMs).toBeLessThan(T + 2 * I + 3000);

    const now = await get(key, 'billing');
    expect(now.code).toBe(0);
    expect(now.result).toMatchObject({ primary: events(heir)[0]!.id, endpoint: `${events(heir)[0]!.id}.local:8080` });
  });

  it('SIGTERM stops the primary gracefully: it releases the entry, exits 0, and the other takes over well before T', async () => {
    const key = freshKey();
    const pair = [contend(key, 'billing', 'g1'), contend(key, 'billing', 'g2')];
    await until(() => pair.some(isActing), WAIT, describeAll(pair));
    await new Promise((resolve) => setTimeout(resolve, 3 * I));
    const leaving = pair.find(isActing)!;
    const heir = pair.find((p) => p !== leaving)!;

    leaving.signal('SIGTERM');
    const termAt = Date.now();
    const exit = await leaving.exited;
    expect(exit, leaving.describe()).toEqual({ code: 0, signal: null });
    expect(events(leaving).slice(-2).map((e) => e.event)).toEqual(['stopped-acting', 'stopped']);
    expect(events(leaving).at(-2)).toMatchObject({ reason: 'stopped' });

    await until(() => isActing(heir), WAIT, describeAll(pair));
    const acting = actingLines(heir)[0]!;
    expect(acting.ts - termAt, heir.describe()).toBeLessThan(T / 2);
    const now = await get(key, 'billing');
    expect(now.result.primary).toBe(events(heir)[0]!.id);
  });

  it('--exit-on-loss: a primary paused past T loses its entry and exits with code 4 when it resumes', async () => {
    const key = freshKey();
    const first = contend(key, 'billing', 'x1', ['--exit-on-loss']);
    await until(() => isActing(first), WAIT, first.describe.bind(first));
    const second = contend(key, 'billing', 'x2', ['--exit-on-loss']);
    await until(() => events(second).some((e) => e.event === 'primary' && e.primary === 'x1'), WAIT, describeAll([first, second]));

    first.signal('SIGSTOP');
    try {
      await until(() => isActing(second), WAIT, describeAll([first, second]));
    } finally {
      first.signal('SIGCONT');
    }
    const exit = await first.exited;
    expect(exit, first.describe()).toEqual({ code: LOST_PRIMARY, signal: null });
    const tail = events(first).slice(-2);
    expect(tail.map((e) => e.event)).toEqual(['stopped-acting', 'stopped']);
    expect(['deadline', 'superseded', 'vanished']).toContain((tail[0] as { reason: string }).reason);
    expect(first.stderr).toMatch(/exiting so that a supervisor restarts this process/);
    expect(second.alive && isActing(second)).toBe(true);
    expect((await get(key, 'billing')).result.primary).toBe('x2');
  });

  it('bad arguments, an invalid configuration and an unreachable store exit 2 with one line on stderr', async () => {
    const port = await freePort();
    const cases: [string[], RegExp][] = [
      [['primary', 'run', '--store', redis.url, '--group', 'k', '--env', ENV, '--type', 'billing', '--interval', '500', '--timeout', '1000'], /^roster primary run: --timeout 1000 is not more than twice --interval 500 \(2 × 500 = 1000\): set --timeout to at least 1001 or --interval to at most 499$/],
      [['primary', 'run', '--store', redis.url, '--group', 'k', '--env', ENV], /^roster primary run: missing --type/],
      [['primary', 'run', '--store', redis.url, '--group', 'k', '--env', ENV, '--type', 'billing', '--bogus'], /^roster primary run: unknown option --bogus/],
      [['primary', 'run', '--store', `redis://127.0.0.1:${port}`, '--group', 'k', '--env', ENV, '--type', 'billing', '--connect-timeout', '500'], new RegExp(`^roster primary run: cannot reach the store: redis://127\\.0\\.0\\.1:${port}: `)],
      [['primary', 'get', '--store', `redis://127.0.0.1:${port}`, '--group', 'k', '--env', ENV, '--type', 'billing', '--connect-timeout', '500'], new RegExp(`^roster primary get: cannot reach the store: redis://127\\.0\\.0\\.1:${port}: `)],
    ];
    for (const [args, line] of cases) {
      const { exit, stdout, stderr } = await runRoster(args);
      expect(exit.code, `${args.join(' ')}\n${stderr}`).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
      expect(stderr.trimEnd()).toMatch(line);
    }
  });
});

/** A loopback port nobody listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
