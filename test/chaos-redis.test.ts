import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * The simulator's chaos, for real: `roster node --json` processes on a real redis-server and the
 * real clock. The leader is SIGKILLed, a follower is SIGSTOPped past the timeout and SIGCONTed, and
 * the Redis server restarts empty, twice each; every time the cluster must recover within the
 * convergence bound of docs/protocol-rationale.md (2T + 6I after the last fault), with generous slack for a
 * real clock on a loaded machine. Every process is killed after the run, even when it fails.
 */
const I = 200;
const T = 1000;
/** The documented bound: 2T + 6I after the last fault. */
const BOUND = 2 * T + 6 * I;
/** What the real-clock test allows: the bound twice over, plus 3 s (process scheduling, reconnecting to Redis). */
const GENEROUS = 2 * BOUND + 3000;
const ROUNDS = 2;

let redis: RedisTestServer;
const key = `chaos${Math.random().toString(36).slice(2, 8)}`;
const nodes = new Map<string, RosterNodeProcess>();
const ids = new WeakMap<RosterNodeProcess, string>();
const recoveries: { fault: string; ms: number }[] = [];

function start(id: string): RosterNodeProcess {
  const p = startRoster('node', '--store', redis.url, '--group', key, '--env', 'chaos', '--id', id, '--interval', String(I), '--timeout', String(T), '--json');
  nodes.set(id, p);
  ids.set(p, id);
  return p;
}

function live(): RosterNodeProcess[] {
  return [...nodes.values()].filter((p) => p.alive);
}

function idOf(p: RosterNodeProcess): string {
  return ids.get(p)!;
}

/**
 * True when every live node follows one leader (same id and fencing token), that leader is live
 * and says it leads, and every live node lists exactly the live nodes.
 */
function converged(): boolean {
  const ps = live();
  const ids = ps.map(idOf).sort().join(',');
  const leader = ps[0]?.leader;
  if (!leader) return false;
  const holder = nodes.get(leader.id);
  if (!holder?.alive || holder.role !== 'leader') return false;
  return ps.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token && p.members.join(',') === ids);
}

function describeAll(): string {
  return [...nodes].map(([id, p]) => `${id} (${p.alive ? 'alive' : 'dead'}): role ${p.role}, leader ${p.leader?.id}/${p.leader?.token}, members [${p.members.join(' ')}]\n${p.stderr.slice(-500)}`).join('\n');
}

/** Waits for convergence after a fault that ended just now; records and returns the time it took. */
async function recovery(fault: string): Promise<number> {
  const ms = await until(converged, GENEROUS, () => `no convergence within ${GENEROUS} ms after ${fault}:\n${describeAll()}`);
  recoveries.push({ fault, ms: Math.round(ms) });
  return ms;
}

const leaderNode = (): RosterNodeProcess => nodes.get(live()[0]!.leader!.id)!;

/** The broadcasts in the store now, at every nonce of the leader key. */
async function storedBroadcasts(): Promise<string[]> {
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    const values = await Promise.all([0, 1, 2, 3].map((n) => client.get(`roster/${key}/chaos/leader ${n}`)));
    return values.filter((v): v is string => v !== null);
  } finally {
    client.disconnect();
  }
}

/** True when the store holds the current leader's broadcast, listing every live node. */
async function storeRebuilt(): Promise<boolean> {
  const leader = live()[0]?.leader;
  const want = live().map(idOf).sort().join(' ');
  return (await storedBroadcasts()).some((v) => {
    const [, , , id, ...members] = v.split(' ');
    return id === leader?.id && [...members].sort().join(' ') === want;
  });
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const p of nodes.values()) if (p.alive) p.signal('SIGCONT');
  await killAllNodes();
  await redis?.stop();
  console.log(`recoveries (bound 2T + 4I = ${BOUND} ms, allowed ${GENEROUS} ms):\n${recoveries.map((r) => `  ${r.fault}: ${r.ms} ms`).join('\n')}`);
});

describe('real processes on a real redis-server', () => {
  it('a cluster of four recovers from each fault within the convergence bound, every time', async () => {
    for (const id of ['n1', 'n2', 'n3', 'n4']) start(id);
    await until(converged, 10 * T + GENEROUS, () => `the cluster never formed:\n${describeAll()}`);

    for (let round = 1; round <= ROUNDS; round++) {
      // SIGKILL the leader: the survivors elect a new one, with a higher fencing token, and drop it.
      const old = leaderNode();
      const oldId = idOf(old);
      const oldToken = old.leader!.token;
      old.signal('SIGKILL');
      await old.exited;
      expect(await recovery(`round ${round}: leader ${oldId} SIGKILLed`)).toBeLessThan(GENEROUS);
      expect(live()[0]!.leader!.token).toBeGreaterThan(oldToken);
      // It comes back as a new process with the same id and rejoins.
      start(oldId);
      await recovery(`round ${round}: ${oldId} restarted`);

      // SIGSTOP a follower for longer than the timeout, then SIGCONT: it is dropped, then rejoins.
      const follower = live().find((p) => p !== leaderNode())!;
      const seen = leaderNode().events.length;
      follower.signal('SIGSTOP');
      await sleep(T + 3 * I);
      follower.signal('SIGCONT');
      expect(await recovery(`round ${round}: follower ${idOf(follower)} SIGSTOPped for ${T + 3 * I} ms, then SIGCONTed`)).toBeLessThan(GENEROUS);
      // It was past the timeout: the leader dropped it, and it rejoined by itself.
      const dropped = leaderNode().events.slice(seen).some((e) => e.event === 'members' && e.removed.includes(idOf(follower)));
      expect(dropped, describeAll()).toBe(true);

      // Restart the Redis server without its data: the leader republishes, members rejoin.
      await redis.restart();
      expect(await storedBroadcasts()).toEqual([]);
      const restarted = performance.now();
      await until(converged, GENEROUS, () => `no convergence after the restart:\n${describeAll()}`);
      for (;;) {
        if (await storeRebuilt()) break;
        if (performance.now() - restarted > GENEROUS) throw new Error(`the store was not rebuilt within ${GENEROUS} ms:\n${(await storedBroadcasts()).join('\n')}\n${describeAll()}`);
        await sleep(50);
      }
      const ms = performance.now() - restarted;
      recoveries.push({ fault: `round ${round}: redis-server restarted empty (store rebuilt)`, ms: Math.round(ms) });
      expect(ms).toBeLessThan(GENEROUS);
    }
  });
});
