/**
 * Three web-service processes on a real redis-server (I = 100 ms, T = 500 ms). The cases run in
 * order on the same processes: the group each leaves behind is the next one's starting point.
 */
import { redisCommand } from '@roster/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from './support/redis.js';
import { killAll, Service, until, type Line } from './support/services.js';

const TIMING = ['--interval-ms', '100', '--timeout-ms', '500', '--period-ms', '100'];
/** A failover (T + 2I = 700 ms), with room for a loaded machine. */
const FAILOVER_MS = 5_000;
const ENV = 'web-test';

let redis: TestRedis;
let services: Service[] = [];
const describeAll = (): string => services.map((s) => s.describe()).join('\n');

/** The one service whose leader work runs now, once there is exactly one. */
const soleLeader = (among: readonly Service[]): Service | undefined => {
  const leading = among.filter((s) => s.leads());
  return leading.length === 1 ? leading[0] : undefined;
};

/** The digest in Redis: who wrote it last, under which token. */
async function digest(): Promise<{ by: string; token: string; n: number } | null> {
  const text = await redisCommand(redis.port, ['GET', `web-service/${ENV}/digest`]);
  return typeof text === 'string' ? (JSON.parse(text) as { by: string; token: string; n: number }) : null;
}

/** The value of one sample line of a Prometheus text. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The events of interest of one service, in order. */
const story = (s: Service, events: readonly string[]): string[] => s.lines.filter((l) => events.includes(l.event)).map((l) => (l.reason ? `${l.event}:${String(l.reason)}` : l.event));

beforeAll(async () => {
  redis = await startRedis();
  services = ['w1', 'w2', 'w3'].map((id) => new Service(id, ['--store', redis.url, '--env', ENV, ...TIMING]));
  await until(() => services.every((s) => s.last('ready')), 15_000, describeAll);
}, 30_000);

afterAll(async () => {
  await killAll(services);
  await redis?.stop();
});

describe('examples/web-service: three processes on a real redis-server', () => {
  it('one process leads and does the leader-only work; all three are ready and serve Roster’s metrics beside their own', async () => {
    const leader = await until(() => soleLeader(services), FAILOVER_MS, describeAll);
    const token = leader.last('leading')!.token as string;
    await until(async () => (await digest())?.by === leader.id, FAILOVER_MS, describeAll);
    expect((await digest())!.token).toBe(token);
    for (const s of services) {
      await until(async () => (await s.request('/readyz')).status === 200, FAILOVER_MS, describeAll);
      expect(await s.request('/healthz')).toMatchObject({ status: 200, body: { healthy: true, reason: 'ok' } });
      // A process may be ready (it follows the leader) before the leader's list names all three.
      const metrics = await until(async () => {
        const text = (await s.request('/metrics')).text;
        return sample(text, 'roster_members') === 3 ? text : undefined;
      }, FAILOVER_MS, describeAll);
      expect(sample(metrics, 'roster_is_leader'), s.id).toBe(s === leader ? 1 : 0);
      // client-go's names beside them: a Kubernetes dashboard reads the same thing.
      expect(sample(metrics, 'leader_election_master_status{name="web-service"}'), s.id).toBe(s === leader ? 1 : 0);
      expect(sample(metrics, 'web_service_digests_total')! > 0, s.id).toBe(s === leader);
      expect(metrics).toContain('process_cpu_user_seconds_total');
      expect((await s.request('/')).body).toMatchObject({ id: s.id, leader: { id: leader.id, token }, members: ['w1', 'w2', 'w3'] });
    }
    expect(services.filter((s) => s.events('leading').length > 0)).toEqual([leader]);
  });

  it('POST /resign on a follower is refused; on the leader, another process takes over the work within about an interval', async () => {
    const old = soleLeader(services)!;
    const follower = services.find((s) => s !== old)!;
    expect(await follower.request('/resign', 'POST')).toMatchObject({ status: 409, body: { resigned: false } });

    const before = performance.now();
    const answer = await old.request('/resign', 'POST');
    expect(answer).toMatchObject({ status: 200, body: { resigned: true, role: 'follower' } });
    // The old leader's work ended before resign() answered, that is, before its goodbye.
    expect(old.leads()).toBe(false);
    expect(old.last('stopped-leading')).toMatchObject({ reason: 'resigned' });
    const next = await until(() => soleLeader(services.filter((s) => s !== old)), FAILOVER_MS, describeAll);
    const handOverMs = next.last('leading')!.at - before;
    console.log(`resign: ${next.id} led ${handOverMs.toFixed(0)} ms after POST /resign to ${old.id}`);
    expect(handOverMs).toBeLessThan(FAILOVER_MS);
    expect(BigInt(next.last('leading')!.token as string)).toBeGreaterThan(BigInt(old.last('leading')!.token as string));
    expect(next.last('leading')!.at).toBeGreaterThanOrEqual(old.last('stopped-leading')!.at);
    await until(async () => (await digest())?.by === next.id, FAILOVER_MS, describeAll);
    // The resigned process stays a member and follows the new leader (once it has read its broadcast).
    await until(async () => ((await old.request('/')).body as { leader?: { id: string } }).leader?.id === next.id, FAILOVER_MS, describeAll);
    expect(old.child.exitCode).toBeNull();
    expect(old.leads()).toBe(false);
  });

  it('SIGTERM stops a process cleanly: the leader’s work ends before it exits, another takes over, and every process exits with 0', async () => {
    const leader = soleLeader(services)!;
    const rest = services.filter((s) => s !== leader);
    leader.signal('SIGTERM');
    expect(await leader.exited).toBe(0);
    const events = ['leading', 'stopping', 'stopped-leading', 'stopped'];
    expect(story(leader, events).slice(-3)).toEqual(['stopping', 'stopped-leading:stopped', 'stopped']);
    const stoppedLeading: Line = leader.last('stopped-leading')!;
    const next = await until(() => soleLeader(rest), FAILOVER_MS, describeAll);
    expect(next.last('leading')!.at).toBeGreaterThanOrEqual(stoppedLeading.at);
    await until(async () => (await digest())?.by === next.id, FAILOVER_MS, describeAll);

    for (const s of rest) s.signal('SIGTERM');
    expect(await Promise.all(rest.map((s) => s.exited))).toEqual([0, 0]);
    for (const s of rest) expect(s.last('stopped'), s.describe()).toBeDefined();
    expect(story(next, events).slice(-3)).toEqual(['stopping', 'stopped-leading:stopped', 'stopped']);
  });
});
