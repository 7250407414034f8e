/**
 * Three job-runner processes on a real redis-server, each with its queue connection through its
 * own {@link HoldingProxy} (a network that can delay that process's writes). The cases run in
 * order on the same processes: the cluster they leave behind is the next one's starting point.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../src/JobQueue.js';
import { HoldingProxy } from './support/HoldingProxy.js';
import { startRedis, type TestRedis } from './support/redis.js';
import { killAllRunners, Runner, until, type Line } from './support/runners.js';

const JOBS = 12;
const ALL_JOBS = Array.from({ length: JOBS }, (_, i) => `job-${i}`).sort();
const TIMING = ['--interval-ms', '250', '--timeout-ms', '2500', '--period-ms', '200', '--work-ms', '600', '--poll-ms', '100'];
/** A Roster failover (T + 2I) and one round of work, with room for a loaded machine. */
const FAILOVER_MS = 12_000;

let redis: TestRedis;
let data: Redis;
let queue: JobQueue;
let proxies: HoldingProxy[] = [];
let runners: Runner[] = [];
const dead = new Set<Runner>();

const alive = (): Runner[] => runners.filter((runner) => !dead.has(runner));
const describeAll = (): string => runners.map((runner) => runner.describe()).join('\n');

/** True when `runner` leads now: its last `leading` line is newer than its last `stopped-leading`. */
function leads(runner: Runner): boolean {
  const lines = runner.lines.filter((line) => line.event === 'leading' || line.event === 'stopped-leading');
  return lines.at(-1)?.event === 'leading';
}

/** The runner whose scheduler has written with a token above `than`, and that token. */
function acceptedWriteAbove(than: bigint, among: readonly Runner[]): { runner: Runner; token: bigint } | undefined {
  for (const runner of among) {
    const write = runner.events('task-write').find((line) => line.accepted === true && BigInt(line.token as string) > than);
    if (write) return { runner, token: BigInt(write.token as string) };
  }
  return undefined;
}

/**
 * A round, begun after `since`, that every runner of `among` ran with the same total,
 * `among.length`, and distinct indices.
 */
function convergedRound(among: readonly Runner[], since = 0): { round: number; shards: Map<Runner, string[]> } | undefined {
  const jobs = (runner: Runner): Line[] => runner.events('jobs').filter((line) => line.at > since);
  const rounds = new Set(among.flatMap((runner) => jobs(runner).map((line) => line.round as number)));
  for (const round of [...rounds].sort((a, b) => b - a)) {
    const lines = among.map((runner) => jobs(runner).find((line) => line.round === round));
    if (lines.some((line) => line === undefined || line.total !== among.length)) continue;
    if (new Set(lines.map((line) => line!.index)).size !== among.length) continue;
    return { round, shards: new Map(among.map((runner, i) => [runner, lines[i]!.jobs as string[]])) };
  }
  return undefined;
}

/** Checks that the shards of a converged round are disjoint, cover the queue, and match Redis. */
async function expectDisjointCover(round: number, shards: Map<Runner, string[]>): Promise<void> {
  const all = [...shards.values()].flat();
  expect(new Set(all).size, 'no job in two shards').toBe(all.length);
  expect(all.sort(), 'every job in a shard').toEqual(ALL_JOBS);
  const owners = await queue.results(round);
  for (const [runner, jobs] of shards) for (const job of jobs) expect(owners[job], job).toBe(runner.id);
}

beforeAll(async () => {
  redis = await startRedis();
  data = new Redis(redis.url);
  queue = new JobQueue(data);
  proxies = await Promise.all([0, 1, 2].map(() => HoldingProxy.start(redis)));
  runners = proxies.map(
    (proxy, i) => new Runner(`worker${i + 1}`, ['--store', redis.url, '--data', proxy.url, '--jobs', String(JOBS), ...TIMING]),
  );
});

afterAll(async () => {
  await killAllRunners(runners);
  await Promise.all(proxies.map((proxy) => proxy.close()));
  data?.disconnect();
  await redis?.stop();
});

describe('job-runner: three worker processes on a real redis-server', () => {
  it('runs the leader task in exactly one process, the one every process names as leader', async () => {
    const leader = await until(
      () => {
        const candidate = runners.find((runner) => leads(runner) && runner.events('task-write').some((line) => line.accepted === true));
        return candidate && runners.every((runner) => runner.last('leader')?.leader === candidate.id) && candidate;
      },
      FAILOVER_MS,
      describeAll,
    );
    const from = performance.now();
    await until(() => leader.events('task-start').filter((line) => line.at > from).length >= 2, 5000, describeAll);
    for (const other of runners.filter((runner) => runner !== leader)) {
      expect(other.events('task-start').filter((line) => line.at > from), other.describe()).toEqual([]);
      expect(leads(other)).toBe(false);
    }
  });

  it('divides the queue into shards by cluster index and total: disjoint, and together every job', async () => {
    const { round, shards } = await until(() => convergedRound(runners), FAILOVER_MS, describeAll);
    await expectDisjointCover(round, shards);
  });

  it("rejects a deposed leader's late write, made with its stale fencing token", async () => {
    const old = runners.find(leads)!;
    const proxy = proxies[runners.indexOf(old)]!;
    const oldToken = BigInt(old.last('leading')!.token as string);

    // The old leader starts a round; its network then holds the round's write.
    const started = old.events('task-start').length;
    await until(() => old.events('task-start').length > started, 5000, old.describe.bind(old));
    proxy.hold();
    await until(() => proxy.heldText().includes('highest > token'), 5000, old.describe.bind(old));

    // It is paused, and so deposed: another process leads and publishes with a higher token.
    old.signal('SIGSTOP');
    const next = await until(() => acceptedWriteAbove(oldToken, runners.filter((runner) => runner !== old)), FAILOVER_MS, describeAll);

    // The held write arrives now, after the new leader's: Redis turns it away.
    proxy.release();
    old.signal('SIGCONT');
    const late = await until(() => old.events('task-write').find((line) => line.accepted === false), 5000, describeAll);
    expect(BigInt(late.token as string)).toBe(oldToken);
    expect(BigInt(late.highest as string)).toBeGreaterThanOrEqual(next.token);
    const schedule = await queue.schedule();
    expect(schedule!.token).toBeGreaterThanOrEqual(next.token);
    expect(schedule!.by).not.toBe(old.id);
    await until(() => !leads(old), 5000, old.describe.bind(old));
  });

  it('hands the leader task to another process, with a higher token, when the leader is SIGKILLed; the two left cover the queue', async () => {
    const old = await until(() => alive().find(leads), FAILOVER_MS, describeAll);
    const oldToken = BigInt(old.last('leading')!.token as string);
    const killedAt = performance.now();
    old.signal('SIGKILL');
    dead.add(old);
    await old.exited;

    const next = await until(() => acceptedWriteAbove(oldToken, alive()), FAILOVER_MS, describeAll);
    expect(alive()).toContain(next.runner);
    const { round, shards } = await until(() => convergedRound(alive(), killedAt), FAILOVER_MS, describeAll);
    await expectDisjointCover(round, shards);
  });
});
