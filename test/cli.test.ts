import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';
import { startRedis, type RedisTestServer } from './support/redis.js';

/** `roster node --json` as processes on a real redis-server and the real clock, with generous bounds. */
const I = 100;
const T = 600;
const WAIT = 15_000;

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await killAllNodes();
  await redis?.stop();
});

/** Every node started by a test, checked against the JSON contract after it. */
let started: RosterNodeProcess[] = [];
afterEach(async () => {
  await killAllNodes();
  for (const p of started) expectContract(p);
  started = [];
});

/** A fresh group per test, so tests never see one another's nodes. */
function freshKey(): string {
  return `cli${Math.random().toString(36).slice(2, 8)}`;
}

function startNode(key: string, id: string, extra: string[] = []): RosterNodeProcess {
  const p = startRoster('node', '--store', redis.url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json', ...extra);
  started.push(p);
  return p;
}

/** Every stdout line is one JSON object with `ts`, `id` and a known `event`, in the documented shape. */
function expectContract(p: RosterNodeProcess): void {
  expect(p.lines.length, p.describe()).toBeGreaterThan(0);
  expect(p.events.length, `a stdout line is not JSON:\n${p.describe()}`).toBe(p.lines.length);
  const id = p.events[0]!.id;
  for (const e of p.events) {
    expect(typeof e.ts).toBe('number');
    expect(Math.abs(e.ts - Date.now())).toBeLessThan(10 * 60_000);
    expect(e.id).toBe(id);
    switch (e.event) {
      case 'role':
        expect(['follower', 'candidate', 'leader']).toContain(e.role);
        break;
      case 'leader':
        if (e.leader === null) expect([e.era, e.nonce, e.token]).toEqual([null, null, null]);
        else expect(e.token).toMatch(/^\d+$/);
        break;
      case 'members':
        expect([...e.members].sort()).toEqual(e.members);
        expect(Number.isInteger(e.version)).toBe(true);
        break;
      case 'stopped':
        expect(e).toBe(p.events.at(-1));
        break;
      default:
        throw new Error(`unknown event in ${JSON.stringify(e)}`);
    }
  }
  expect(p.events[0]).toMatchObject({ event: 'role', role: 'follower', previous: null });
}

/** True when every node in `nodes` follows the same leader, one of them, and sees exactly `nodes` as members. */
function agree(nodes: readonly RosterNodeProcess[], ids: readonly string[]): boolean {
  const leader = nodes[0]!.leader;
  if (!leader || !ids.includes(leader.id)) return false;
  const want = [...ids].sort().join(',');
  return nodes.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token && p.members.join(',') === want);
}

function describeAll(nodes: readonly RosterNodeProcess[]): () => string {
  return () => nodes.map((p) => p.describe()).join('\n');
}

describe('roster node --json against a real redis-server', () => {
  it('three nodes agree on a leader and on the member list', async () => {
    const key = freshKey();
    const ids = ['a', 'b', 'c'];
    const nodes = ids.map((id) => startNode(key, id));
    await until(() => agree(nodes, ids), WAIT, describeAll(nodes));

    const leaderId = nodes[0]!.leader!.id;
    const leader = nodes[ids.indexOf(leaderId)]!;
    expect(leader.role).toBe('leader');
    expect(nodes.filter((p) => p !== leader).map((p) => p.role)).toEqual(['follower', 'follower']);
  });

  it('SIGKILL of the leader brings the other two to a new leader with a higher token', async () => {
    const key = freshKey();
    const ids = ['a', 'b', 'c'];
    const nodes = ids.map((id) => startNode(key, id));
    await until(() => agree(nodes, ids), WAIT, describeAll(nodes));
    const old = nodes[0]!.leader!;
    const victim = nodes[ids.indexOf(old.id)]!;
    const survivors = nodes.filter((p) => p !== victim);

    victim.signal('SIGKILL');
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const failoverMs = await until(
      () => survivors.every((p) => p.leader != null && p.leader.id !== old.id && p.leader.token > old.token && p.leader.id === survivors[0]!.leader?.id),
      WAIT,
      describeAll(survivors),
    );
    // Then the dead leader drops out of the list everyone sees.
    const rest = ids.filter((id) => id !== old.id);
    await until(() => agree(survivors, rest), WAIT, describeAll(survivors));
    expect(rest).toContain(survivors[0]!.leader!.id);
    expect(failoverMs).toBeLessThan(WAIT);
  });

  it('SIGTERM of a follower removes it from the others’ lists well before the timeout', async () => {
    const key = freshKey();
    const ids = ['a', 'b', 'c'];
    const slowT = 5000; // a long timeout, so that a removal by timeout cannot pass for a leave
    const nodes = ids.map((id) => startRoster('node', '--store', redis.url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(slowT), '--json'));
    started.push(...nodes);
    await until(() => agree(nodes, ids), 4 * slowT, describeAll(nodes));
    const leaderId = nodes[0]!.leader!.id;
    const follower = nodes.find((p) => p.leader && p.events[0]!.id !== leaderId)!;
    const followerId = follower.events[0]!.id;
    const others = nodes.filter((p) => p !== follower);

    const sent = performance.now();
    follower.signal('SIGTERM');
    const removedMs = await until(() => others.every((p) => !p.members.includes(followerId)), WAIT, describeAll(others));
    expect(removedMs).toBeLessThan(slowT / 2);
    expect(await follower.exited).toEqual({ code: 0, signal: null });
    expect(follower.events.at(-1)?.event).toBe('stopped');
    expect(performance.now() - sent).toBeLessThan(slowT);
    expect(agree(others, ids.filter((id) => id !== followerId))).toBe(true);
  });

  it('SIGTERM of the leader: it resigns, exits 0 with `stopped` last, and the others elect a new leader', async () => {
    const key = freshKey();
    const ids = ['a', 'b', 'c'];
    const nodes = ids.map((id) => startNode(key, id));
    await until(() => agree(nodes, ids), WAIT, describeAll(nodes));
    const old = nodes[0]!.leader!;
    const leader = nodes[ids.indexOf(old.id)]!;
    const others = nodes.filter((p) => p !== leader);

    leader.signal('SIGTERM');
    expect(await leader.exited).toEqual({ code: 0, signal: null });
    expect(leader.events.slice(-2).map((e) => e.event)).toEqual(['role', 'stopped']);
    expect(leader.events.at(-2)).toMatchObject({ role: 'follower', previous: 'leader', reason: 'stopped' });
    await until(
      () => agree(others, ids.filter((id) => id !== old.id)) && others[0]!.leader!.token > old.token,
      WAIT,
      describeAll(others),
    );
  });
});

describe('roster node --status-port', () => {
  it('serves the node’s role, leader, members, latency and recent lines while it runs, and stops serving when it stops', async () => {
    const key = freshKey();
    const a = startNode(key, 'a', ['--status-port', '0']);
    const b = startNode(key, 'b');
    await until(() => agree([a, b], ['a', 'b']) && /status page url=http:\/\/127\.0\.0\.1:\d+\//.test(a.stderr), WAIT, describeAll([a, b]));
    const url = /status page url=(http:\/\/127\.0\.0\.1:\d+\/)/.exec(a.stderr)![1]!;

    const status = (await (await fetch(`${url}status.json`)).json()) as Record<string, any>;
    expect(status).toMatchObject({ id: 'a', group: key, env: 'test', state: 'running', role: a.role, intervalMs: I, timeoutMs: T });
    expect(status.leader).toMatchObject({ id: a.leader!.id, token: String(a.leader!.token) });
    expect(status.members.list.map((m: { id: string }) => m.id)).toEqual(['a', 'b']);
    expect(typeof status.latency.windowReadMs).toBe('number');
    expect(status.recent.join('\n')).toMatch(/role follower \(started\)/);
    const html = await (await fetch(url)).text();
    expect(html).toContain('roster node <span id="id">a</span>');
    expect((await fetch(`${url}readyz`)).status).toBe(200);

    a.signal('SIGTERM');
    expect(await a.exited).toEqual({ code: 0, signal: null });
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('roster node: problems at start exit 2 with one line naming the problem', () => {
  /** One non-empty line on stderr, nothing on stdout, exit code 2. */
  function expectUsageError(result: Awaited<ReturnType<typeof runRoster>>, mentions: RegExp): void {
    expect(result.exit, result.stderr).toEqual({ code: 2, signal: null });
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^roster node: /);
    expect(lines[0]).toMatch(mentions);
  }

  it('a missing required option', async () => {
    expectUsageError(await runRoster(['node', '--group', 'app', '--env', 'dev']), /missing --store/);
  });

  it('an unknown option', async () => {
    expectUsageError(await runRoster(['node', '--store', redis.url, '--group', 'app', '--env', 'dev', '--colour']), /unknown option --colour/);
  });

  it('a number that is not one', async () => {
    expectUsageError(await runRoster(['node', '--store', redis.url, '--group', 'app', '--env', 'dev', '--interval', 'fast']), /--interval .*"fast"/);
  });

  it('a store URL that cannot be parsed', async () => {
    expectUsageError(await runRoster(['node', '--store', 'http://localhost:6379', '--group', 'app', '--env', 'dev']), /invalid store URL: .*redis:\/\/.* \(from --store\)$/);
  });

  it('an invalid config: the timeout not above twice the interval', async () => {
    expectUsageError(
      await runRoster(['node', '--store', redis.url, '--group', 'app', '--env', 'dev', '--interval', '500', '--timeout', '1000']),
      /--timeout 1000 is not more than twice --interval 500 \(2 × 500 = 1000\): set --timeout to at least 1002 or --interval to at most 499$/,
    );
  });

  it('an invalid id', async () => {
    expectUsageError(await runRoster(['node', '--store', redis.url, '--group', 'app', '--env', 'dev', '--id', 'no spaces']), /invalid --id/);
  });

  it('a store unreachable at start', async () => {
    const port = await closedPort();
    const started = performance.now();
    expectUsageError(
      await runRoster(['node', '--store', `redis://127.0.0.1:${port}`, '--group', 'app', '--env', 'dev', '--connect-timeout', '1000']),
      new RegExp(`cannot reach the store: redis://127\\.0\\.0\\.1:${port}`),
    );
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('--log-format json: every stderr line is pino JSON, the one before exit 2 at level fatal', async () => {
    const port = await closedPort();
    const cases: [string[], RegExp][] = [
      [['node', '--log-format', 'json', '--store', 'http://app:Hidden1@localhost:6379', '--group', 'app', '--env', 'dev'], /^roster node: .*(--store|store URL)/],
      [['node', '--log-format=json', '--group', 'app', '--env', 'dev'], /^roster node: missing --store/],
      [
        ['node', '--log-format', 'json', '--verbose', '--store', `redis://:Hidden1@127.0.0.1:${port}`, '--group', 'app', '--env', 'dev', '--connect-timeout', '500'],
        new RegExp(`^roster node: cannot reach the store: redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}`),
      ],
      [['primary', 'run', '--log-format', 'json', '--store', redis.url, '--group', 'k', '--env', 'dev', '--type', 'billing', '--interval', '500', '--timeout', '1000'], /^roster primary run: .*--timeout/],
    ];
    for (const [args, mentions] of cases) {
      const result = await runRoster(args);
      expect(result.exit, result.stderr).toEqual({ code: 2, signal: null });
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toContain('Hidden1');
      const entries = result.stderr.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(entries.length, result.stderr).toBeGreaterThan(0);
      for (const entry of entries) expect(entry).toMatchObject({ level: expect.any(Number), time: expect.stringMatching(/Z$/), pid: expect.any(Number), hostname: expect.any(String) });
      const last = entries.at(-1)!;
      expect(last).toMatchObject({ level: 60, exitCode: 2 });
      expect(last.msg).toMatch(mentions);
      expect(entries.slice(0, -1).every((e) => (e.level as number) < 60)).toBe(true);
    }
  });

  it('an unknown command, and no command at all', async () => {
    const unknown = await runRoster(['nodes']);
    expect(unknown.exit.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "nodes"/);
    const none = await runRoster([]);
    expect(none.exit.code).toBe(2);
    expect(none.stderr).toMatch(/Usage: roster <command>/);
  });

  it('--help prints a readable usage on stdout and exits 0', async () => {
    const help = await runRoster(['node', '--help']);
    expect(help.exit.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: roster node \[--store URL \| --store-file PATH\] --group GROUP --env ENV/);
    expect(help.stdout).toMatch(/rediss:\/\//);
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
