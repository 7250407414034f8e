import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deployFigures, type DeployedProcess } from './support/rollingDeploy.js';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

// A rolling deploy of 5 `roster node` processes on a real redis-server (I = 200 ms, T = 1 s: the
// store round trips must fit in I/2 on a shared, loaded 2-core machine; the figures at I = 100 ms
// are test/rolling-deploy.measure.ts's):
// each process in turn is stopped (SIGTERM: a graceful stop) and started again on the new version,
// `--priority version:1.1.0` where the group ran 1.0.0; the next goes once the restarted one is
// listed everywhere and T more have passed (a deploy waits for readiness). Everything asserted is
// read from the JSON lines the processes print.
const I = 200;
const T = 1000;
const IDS = ['n1', 'n2', 'n3', 'n4', 'n5'];

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await killAllNodes();
});
afterAll(async () => {
  await redis?.stop();
});

interface Incarnation {
  readonly label: string;
  readonly process: RosterNodeProcess;
  endedAt?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a rolling deploy onto a higher priority (5 roster node processes, Redis)', () => {
  it('changes the leader once, to the first process of the new version, with no instant of two leaders', async () => {
    const env = `roll${Math.random().toString(36).slice(2, 8)}`;
    const all: Incarnation[] = [];
    const live = new Map<string, Incarnation>();
    const start = (id: string, version: string): Incarnation => {
      const count = all.filter((i) => i.label.split('#')[0] === id).length;
      const args = ['node', '--store', redis.url, '--group', 'rolling', '--env', env, '--id', id, '--interval', String(I), '--timeout', String(T), '--json', '--priority', `version:${version}`];
      const inc: Incarnation = { label: count === 0 ? id : `${id}#${count + 1}`, process: startRoster(...args) };
      void inc.process.exited.then(() => (inc.endedAt = Date.now()));
      all.push(inc);
      live.set(id, inc);
      return inc;
    };
    const describeAll = () => all.map((i) => `${i.label}: ${i.process.describe()}`).join('\n\n');
    /** One process says `leader`, every live process follows it and lists all five. */
    const converged = () => {
      const ps = [...live.entries()];
      const leaders = ps.filter(([, i]) => i.process.role === 'leader');
      if (leaders.length !== 1) return false;
      const leader = leaders[0]![0];
      return ps.every(([, i]) => i.process.leader?.id === leader && i.process.members.length === IDS.length);
    };

    for (const id of IDS) start(id, '1.0.0');
    await until(converged, 60_000, describeAll);
    const leaderId = [...live.entries()].find(([, i]) => i.process.role === 'leader')![0];
    // The order a deploy tool that knows nothing of leadership might take: a follower first, then
    // the leader, then the rest (without priorities, the leader's turn moves leadership again).
    const followers = IDS.filter((id) => id !== leaderId);
    const order = [followers[0]!, leaderId, ...followers.slice(1)];

    const deployFrom = Date.now();
    for (const id of order) {
      const old = live.get(id)!;
      old.process.signal('SIGTERM');
      await old.process.exited;
      const inc = start(id, '1.1.0');
      await until(() => [...live.values()].every((i) => i.process.members.includes(id)) && inc.process.leader != null, 20_000, describeAll);
      // The first process of the new version takes over on its own once it has PINGed the leader for T.
      if (id === order[0]) await until(() => inc.process.role === 'leader', 20_000, describeAll);
      await sleep(T);
    }
    await until(converged, 20_000, describeAll);
    await sleep(T);
    const deployEnd = Date.now();

    const processes: DeployedProcess[] = all.map((i) => ({
      label: i.label,
      roles: i.process.events.flatMap((e) => (e.event === 'role' ? [{ t: e.ts, role: e.role }] : [])),
      endedAt: i.endedAt,
    }));
    const figures = deployFigures(processes, deployFrom, deployEnd);
    console.log(`rolling deploy onto a higher priority: leader ${figures.first} → ${figures.successors.join(' → ')}; longest gap without a leader ${figures.longestGapMs} ms; overlaps ${JSON.stringify(figures.overlaps)}`);
    // The situation: the old version's leader led when the deploy began, and went second.
    expect(figures.first).toBe(leaderId);
    // Once, to the first process of the new version; never two leaders at one instant.
    expect(figures.successors, describeAll()).toEqual([`${order[0]}#2`]);
    expect(figures.overlaps).toEqual([]);
    // The hand-over is a resignation's: the old leader said `resigned`, nobody of the old version stood.
    const oldLeader = all.find((i) => i.label === leaderId)!.process;
    expect(oldLeader.events.some((e) => e.event === 'role' && e.reason === 'resigned')).toBe(true);
    // Generous on a shared machine: below a crash's failover bound T + 2I.
    expect(figures.longestGapMs).toBeLessThan(T + 2 * I);
  });
});
