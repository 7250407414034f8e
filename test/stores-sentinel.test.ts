import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRedisFailover, LocalRedisSentinel } from '@roster/testing';
import { startRedisSentinel } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * `roster node --json` processes on a Sentinel-managed Redis (`--store redis+sentinel://…`): the
 * election's real-process checks, then the store's own fault, a SIGKILLed master failed over by
 * the sentinels while the nodes write, with and without `min-replicas-to-write`. Every figure is
 * read from what the processes print (the `ts` of their JSON lines).
 */
const I = 100;
const T = 500;
/** The lease: a leader that cannot renew stops reporting `leader` within R of its last renewal's start. */
const R = T / 2;
/** Slack for a loaded 2-core machine: process scheduling, printing, polling. */
const SLACK = 500;
const GENEROUS = 15_000;

let sentinel: LocalRedisSentinel;
let nodes: RosterNodeProcess[] = [];
/** When each process was SIGKILLed (wall clock, as the `ts` of the JSON lines). */
const killedAt = new Map<RosterNodeProcess, number>();
let lastFailoverAt = 0;

beforeAll(async () => {
  sentinel = await startRedisSentinel({ failoverTimeoutMs: 2000 });
});
afterAll(async () => {
  await killAllNodes();
  await sentinel?.stop();
});
afterEach(async () => {
  await killAllNodes();
  nodes = [];
  killedAt.clear();
});

function start(key: string, id: string): RosterNodeProcess {
  const p = startRoster('node', '--json', '--store', sentinel.url, '--group', key, '--env', 'sentinel', '--id', id, '--interval', String(I), '--timeout', String(T));
  nodes.push(p);
  return p;
}

const alive = (): RosterNodeProcess[] => nodes.filter((p) => p.alive && !killedAt.has(p));
const idOf = (p: RosterNodeProcess): string => p.events[0]?.id ?? '?';
const describeAll = (): string => nodes.map((p) => p.describe().slice(-2500)).join('\n');

/** Every live process agrees on one leader (which says it leads) and on the members. */
function converged(): boolean {
  const live = alive();
  const leader = live[0]?.leader;
  if (!leader) return false;
  const holder = live.find((p) => idOf(p) === leader.id);
  if (!holder || holder.role !== 'leader') return false;
  const ids = live.map(idOf).sort().join(',');
  return live.every(
    (p) => (p === holder || p.role === 'follower') && p.leader?.id === leader.id && p.leader.token === leader.token && [...p.members].sort().join(',') === ids,
  );
}

/** Each process's spans of reporting `leader`, from its role lines (a killed one's ends at its kill). */
function leaderSpans(): { id: string; from: number; to: number }[] {
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
  return spans;
}

/** The windows in which two processes reported `leader` at once. */
function dualLeadership(): { ids: string; ms: number }[] {
  const spans = leaderSpans();
  const out: { ids: string; ms: number }[] = [];
  for (const [i, a] of spans.entries()) {
    for (const b of spans.slice(i + 1)) {
      const ms = Math.min(a.to, b.to) - Math.max(a.from, b.from);
      if (a.id !== b.id && ms > 0) out.push({ ids: `${a.id}+${b.id}`, ms });
    }
  }
  return out;
}

/** The `ts` of the first line of `p` at or after `since` that says it leads. */
function becameLeaderAt(p: RosterNodeProcess, since: number): number | undefined {
  return p.events.find((e) => e.event === 'role' && e.role === 'leader' && e.ts >= since)?.ts;
}

function leaderProcess(): RosterNodeProcess {
  const leader = alive()[0]!.leader!;
  return alive().find((p) => idOf(p) === leader.id)!;
}

function kill(p: RosterNodeProcess): void {
  killedAt.set(p, Date.now());
  p.signal('SIGKILL');
}

/** Every fencing token the processes were told of, in the order of their `ts`. */
function tokens(): bigint[] {
  const seen = nodes.flatMap((p) => p.events.filter((e) => e.event === 'leader' && e.token !== null).map((e) => ({ ts: e.ts, token: BigInt((e as { token: string }).token) })));
  return [...new Set(seen.sort((a, b) => a.ts - b.ts).map((x) => x.token))];
}

async function formGroup(key: string, n = 5): Promise<void> {
  for (let i = 0; i < n; i++) start(key, `${key}${i}`);
  await until(converged, GENEROUS, () => `${n} nodes on Sentinel never converged:\n${describeAll()}`);
}

/**
 * SIGKILLs the Redis master under a converged group and measures, from the processes' lines: when
 * the leader stopped reporting `leader`, when there was a single leader again after the
 * promotion, the fencing tokens, and any window of two leaders.
 */
async function masterFailover(
  label: string,
  { mend }: { mend?: () => Promise<void> } = {},
): Promise<{ failover: LocalRedisFailover; lapseMs: number | undefined; leaderAgainMs: number }> {
  // The sentinels fail the same master over at most once per 2 × failover-timeout (2 s here).
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastFailoverAt + 4500 - Date.now())));
  const before = leaderProcess();
  const t0 = Date.now();
  const failover = await sentinel.failover();
  const promotedAt = Date.now();
  lastFailoverAt = t0;
  await mend?.();
  await until(converged, GENEROUS, () => `no single leader after the promotion:\n${describeAll()}`);
  const after = leaderProcess();
  const lapse = before.events.find((e) => e.event === 'role' && e.ts >= t0 && e.role !== 'leader');
  const leaderAgainMs = (becameLeaderAt(after, t0) ?? Date.now()) - promotedAt;
  console.info(
    `${label}: promotion ${promotedAt - t0} ms after the kill; the leader ${idOf(before)} lapsed ${lapse ? `${lapse.ts - t0} ms after it (${(lapse as { reason?: string }).reason})` : 'never'}; ` +
      `single leader ${idOf(after)} ${leaderAgainMs} ms after the promotion; tokens ${tokens().join(' → ')}; dual leadership ${JSON.stringify(dualLeadership())}`,
  );
  await sentinel.restart(failover.from);
  return { failover, lapseMs: lapse && lapse.ts - t0, leaderAgainMs };
}

describe('roster node on Redis Sentinel (redis+sentinel://), 5 processes at I=100/T=500', () => {
  it('one leader; a SIGKILLed leader is replaced within T + 2I; a join is seen by all; a graceful stop hands over', async () => {
    await formGroup('el');
    expect(alive().filter((p) => p.role === 'leader')).toHaveLength(1);

    const old = leaderProcess();
    const tokenBefore = old.leader!.token;
    const t0 = Date.now();
    kill(old);
    await until(converged, GENEROUS, () => `no new leader after the leader's SIGKILL:\n${describeAll()}`);
    const next = leaderProcess();
    const failoverMs = becameLeaderAt(next, t0)! - t0;
    expect(next.leader!.token).toBeGreaterThan(tokenBefore);

    start('el', 'el5');
    const joinMs = await until(converged, GENEROUS, () => `the join of el5 was not seen by all:\n${describeAll()}`);

    const leaving = leaderProcess();
    const t1 = Date.now();
    leaving.signal('SIGTERM');
    await leaving.exited;
    await until(converged, GENEROUS, () => `no leader after the graceful stop:\n${describeAll()}`);
    const handOverMs = becameLeaderAt(leaderProcess(), t1)! - t1;

    // resign() (SIGUSR2): another leads at once, and the resigned process stays, following it.
    const resigning = leaderProcess();
    const t2 = Date.now();
    resigning.signal('SIGUSR2');
    await until(() => converged() && leaderProcess() !== resigning, GENEROUS, () => `no other leader after resign():\n${describeAll()}`);
    const resignMs = becameLeaderAt(leaderProcess(), t2)! - t2;
    expect(resigning.events.some((e) => e.event === 'role' && e.ts >= t2 && e.role === 'follower' && e.reason === 'resigned'), describeAll()).toBe(true);
    expect(alive()).toContain(resigning);
    console.info(`sentinel election: failover ${failoverMs} ms after SIGKILL (T + 2I = ${T + 2 * I}); join seen by all in ${joinMs} ms; hand-over ${handOverMs} ms after SIGTERM, ${resignMs} ms after resign (SIGUSR2)`);
    expect(failoverMs).toBeLessThanOrEqual(T + 2 * I + SLACK);
    expect(resignMs).toBeLessThanOrEqual(T + SLACK);
    expect(dualLeadership()).toEqual([]);
  });

  it('the Redis master SIGKILLed while the nodes write: the leader lapses within its lease, one leader after the promotion, never two, joins still work', async () => {
    await formGroup('mf');
    const { lapseMs } = await masterFailover('sentinel failover');
    expect(lapseMs, describeAll()).toBeDefined();
    expect(lapseMs!).toBeLessThanOrEqual(R + I + SLACK);
    expect(dualLeadership(), describeAll()).toEqual([]);
    // A promoted replica may miss the last writes; the next era is still above every era seen.
    const seen = tokens();
    expect(seen, describeAll()).toEqual([...seen].sort((a, b) => (a < b ? -1 : 1)));
    // Every process follows the new master, and says so once.
    await until(() => alive().every((p) => /master switched/.test(p.stderr)), GENEROUS, () => `a process did not switch masters:\n${describeAll()}`);
    for (const p of alive()) expect(p.stderr.match(/master switched/g) ?? [], p.describe()).toHaveLength(1);

    start('mf', 'mf5');
    await until(converged, GENEROUS, () => `the join after the failover was not seen by all:\n${describeAll()}`);
  });

  it('min-replicas-to-write 2: a replica lost makes the store refuse writes, so no node reports leader until it is back; a failover with min-replicas-to-write 1', async () => {
    await formGroup('mr');
    const master = await sentinel.master();
    const replica = sentinel.nodes.find((n) => n !== master && n.running)!;
    await sentinel.setMinReplicasToWrite(2);
    try {
      const t0 = Date.now();
      await sentinel.kill(replica);
      await until(() => alive().every((p) => p.role !== 'leader'), GENEROUS, () => `a node still reports leader with writes refused:\n${describeAll()}`);
      const noLeaderMs = Date.now() - t0;
      await new Promise((resolve) => setTimeout(resolve, 2 * T));
      expect(alive().filter((p) => p.role === 'leader')).toEqual([]);
      const t1 = Date.now();
      await sentinel.restart(replica);
      await until(converged, GENEROUS, () => `no leader once the replica was back:\n${describeAll()}`);
      const leaderAgain = becameLeaderAt(leaderProcess(), t1)! - t1;
      const settled = alive().map((p) => `${idOf(p)} ${p.events.filter((e) => e.ts >= t1 && e.event === 'role').map((e) => `+${e.ts - t1} ${(e as { role: string }).role}`).join(' ')}`);
      console.info(`min-replicas-to-write 2, a replica killed: no leader reported ${noLeaderMs} ms after; a leader again ${leaderAgain} ms after the replica's restart began, all settled ${Date.now() - t1} ms after (${settled.join('; ')})`);

      await sentinel.setMinReplicasToWrite(1);
      const { lapseMs } = await masterFailover('sentinel failover with min-replicas-to-write 1');
      expect(lapseMs!).toBeLessThanOrEqual(R + I + SLACK);
      expect(dualLeadership(), describeAll()).toEqual([]);
    } finally {
      await sentinel.setMinReplicasToWrite(0);
      if (!replica.running) await sentinel.restart(replica);
    }
  });

  it('writes lost in the failover (replication cut before the kill): an older broadcast and a lost join, then no key at all; one leader, never two, tokens still rise, the lost join is made again', async () => {
    await sentinel.settle();
    await formGroup('lw');
    // An older broadcast and a lost join: the master alone acknowledges what happens from the cut on.
    let mend = await sentinel.cutReplication();
    start('lw', 'lw5');
    await until(converged, GENEROUS, () => `the join of lw5 was not seen by all:\n${describeAll()}`);
    await new Promise((resolve) => setTimeout(resolve, 3 * I));
    await masterFailover('sentinel failover losing the last writes (an older broadcast, a lost join)', { mend });
    expect(dualLeadership(), describeAll()).toEqual([]);
    const seen = tokens();
    expect(seen, describeAll()).toEqual([...seen].sort((a, b) => (a < b ? -1 : 1)));
    expect(alive().every((p) => p.members.includes('lw5')), describeAll()).toBe(true);
    await killAllNodes();
    nodes = [];

    // No key at all: the group formed on the master alone.
    await sentinel.settle();
    mend = await sentinel.cutReplication();
    await formGroup('nk');
    await new Promise((resolve) => setTimeout(resolve, 3 * I));
    await masterFailover('sentinel failover losing every key of the group', { mend });
    expect(dualLeadership(), describeAll()).toEqual([]);
    const after = tokens();
    expect(after, describeAll()).toEqual([...after].sort((a, b) => (a < b ? -1 : 1)));
  });
});
