import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText } from './support/prometheusText.js';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess, statusUrl } from './support/rosterNode.js';
import { waitFor } from '@roster/testing';

/**
 * `roster node --status-port 0` processes on a real redis-server: `/metrics`, `/healthz`,
 * `/readyz` and `/status.json` as an operator's Prometheus and Kubernetes would read them.
 */
const I = 200;
const T = 1000;
const WAIT = 20_000;

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await killAllNodes();
  await redis?.stop();
});
afterEach(async () => {
  redis?.resume();
  await killAllNodes();
});

function startNode(key: string, id: string): RosterNodeProcess {
  return startRoster('node', '--store', redis.url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json', '--status-port', '0');
}

/** The status page URL a node logs on stderr at start. */
/** Three nodes that agree on one leader and see all three as members; their status URLs. */
async function cluster(): Promise<{ nodes: RosterNodeProcess[]; urls: string[]; key: string }> {
  const key = `obs${Math.random().toString(36).slice(2, 8)}`;
  const nodes = ['a', 'b', 'c'].map((id) => startNode(key, id));
  const urls = await Promise.all(nodes.map((p) => statusUrl(p, WAIT)));
  await until(
    () => nodes.every((n) => n.members.length === 3 && n.leader != null && n.leader.id === nodes[0]!.leader?.id),
    WAIT,
    () => nodes.map((n) => n.describe()).join('\n'),
  );
  return { nodes, urls, key };
}

async function probe(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('roster node --status-port: metrics and probes on a real redis-server', () => {
  it('serves /metrics as Prometheus text with the roster_ metrics, and answers 200 to /healthz and /readyz', async () => {
    const { nodes, urls, key } = await cluster();
    const leaderId = nodes[0]!.leader!.id;
    for (const [i, url] of urls.entries()) {
      const ready = await untilValue(() => probe(`${url}readyz`), (r) => r.status === 200, WAIT);
      expect(ready.body).toEqual({ ready: true, reason: 'ok' });
      expect(await probe(`${url}healthz`)).toEqual({ status: 200, body: { healthy: true, reason: 'ok' } });

      const id = ['a', 'b', 'c'][i]!;
      const isLeader = id === leaderId;
      const scrape = async (): Promise<{ contentType: string | null; families: ReturnType<typeof parsePrometheusText> }> => {
        const response = await fetch(`${url}metrics`);
        return { contentType: response.headers.get('content-type'), families: parsePrometheusText(await response.text()) };
      };
      const roundTrips = (f: ReturnType<typeof parsePrometheusText>): number =>
        f.get('roster_pong_round_trip_seconds')?.samples.find((s) => s.name === 'roster_pong_round_trip_seconds_count')?.value ?? 0;
      // A follower's first round trip ends with the first PONG it reads, an interval or two after it is listed.
      const { contentType, families } = await untilValue(scrape, (m) => isLeader || roundTrips(m.families) > 0, WAIT);
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      const value = (name: string, labels: Record<string, string> = {}): number | undefined =>
        [...families.values()]
          .flatMap((f) => f.samples)
          .find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
      expect(families.get('roster_role')?.type).toBe('gauge');
      expect(value('roster_role', { role: isLeader ? 'leader' : 'follower' })).toBe(1);
      expect(value('roster_is_leader')).toBe(isLeader ? 1 : 0);
      // client-go's leader-election series, `name` the group: Kubernetes dashboards read them as they are.
      expect(families.get('leader_election_master_status')?.type).toBe('gauge');
      expect(value('leader_election_master_status', { name: key })).toBe(isLeader ? 1 : 0);
      expect(families.get('leader_election_slowpath_total')?.type).toBe('counter');
      expect(value('leader_election_slowpath_total', { name: key })).toBe(0);
      expect(value('roster_era')).toBeGreaterThanOrEqual(1);
      expect(String(value('roster_fencing_token'))).toBe(String(nodes[i]!.leader!.token));
      expect(value('roster_members')).toBe(3);
      expect(value('roster_membership_version')).toBeGreaterThan(0);
      expect(value('roster_leader_changes_total')).toBeGreaterThanOrEqual(1);
      expect(families.get('roster_elections_total')?.type).toBe('counter');
      expect(value('roster_elections_total', { outcome: 'won' })).toBe(isLeader ? 1 : 0);
      expect(value('roster_store_operations_total', { operation: 'exchange', outcome: 'ok' })).toBeGreaterThan(0);
      expect(value('roster_store_errors_total', { kind: 'store_unavailable' })).toBe(0);
      expect(families.get('roster_store_operation_duration_seconds')?.type).toBe('histogram');
      expect(value('roster_store_operation_duration_seconds_count', { operation: 'get' })).toBeGreaterThan(0);
      expect(families.get('roster_pong_round_trip_seconds')?.type).toBe('histogram');
      if (!isLeader) expect(value('roster_pong_round_trip_seconds_count')).toBeGreaterThan(0);
      expect(value('roster_nonce_moves_total', { key: 'leader' })).toBe(0); // no key was unavailable
      expect(families.has('process_cpu_user_seconds_total')).toBe(true);
    }
  });

  it('answers 503 to /readyz within T of the store stopping, with the reason, and 200 again once it is back', async () => {
    const { urls } = await cluster();
    for (const url of urls) await untilValue(() => probe(`${url}readyz`), (r) => r.status === 200, WAIT);
    redis.pause();
    const pausedAt = performance.now();
    const answers = await Promise.all(urls.map((url) => untilValue(() => probe(`${url}readyz`), (r) => r.status === 503, 3 * T)));
    const tookMs = performance.now() - pausedAt;
    // Within T of the last answer, plus one scrape interval and a loaded machine's slack.
    expect(tookMs).toBeLessThan(T + 2 * I + 2000);
    // A leader whose lease ran out (T/2) steps down before T and may first say it knows no leader.
    for (const answer of answers) expect(answer.body).toMatchObject({ ready: false, reason: expect.stringMatching(/^(the store has not answered|no leader known|the leader’s lease ran out)/) });
    for (const url of urls) {
      const later = await untilValue(() => probe(`${url}readyz`), (r) => /^the store has not answered/.test(String(r.body.reason)), 3 * T);
      expect(later.status).toBe(503);
    }
    // The store being away is no reason to restart the node: it stays live.
    for (const url of urls) expect((await probe(`${url}healthz`)).status).toBe(200);
    redis.resume();
    for (const url of urls) await untilValue(() => probe(`${url}readyz`), (r) => r.status === 200, WAIT);
  });

  it('lists every member in /status.json: a follower with its own PONG round trip, the leader with every follower’s; every node its store round trip', async () => {
    const { urls } = await cluster();
    type Status = {
      id: string;
      role: string;
      intervalMs: number;
      members: { list: { id: string; pongRoundTripMs: number | null }[] };
      latency: { storeRoundTripMs: number | null };
    };
    for (const url of urls) {
      const status = await untilValue(
        async () => (await (await fetch(`${url}status.json`)).json()) as Status,
        (s) =>
          s.latency.storeRoundTripMs !== null &&
          (s.role === 'leader'
            ? s.members.list.filter((m) => m.id !== s.id).every((m) => m.pongRoundTripMs !== null)
            : s.members.list.some((m) => m.id === s.id && m.pongRoundTripMs !== null)),
        WAIT,
      );
      expect(status.members.list.map((m) => m.id)).toEqual(['a', 'b', 'c']);
      const followers = status.role === 'leader' ? status.members.list.filter((m) => m.id !== status.id) : status.members.list.filter((m) => m.id === status.id);
      for (const m of followers) {
        // A cadence: a PONG is found at the PING after the one it answers, about I later.
        expect(m.pongRoundTripMs).toBeGreaterThanOrEqual(status.intervalMs / 2);
        expect(Object.keys(m).sort()).toEqual(['id', 'pongRoundTripMs', 'weight']); // one name for the figure
      }
      expect(status.latency.storeRoundTripMs).toBeGreaterThanOrEqual(0);
    }
  });
});

/** Calls `get` until `ok` holds of its value; returns that value, or throws with the last one after `timeoutMs`. */
async function untilValue<T>(get: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number): Promise<T> {
  let last: T | undefined;
  await waitFor(async () => ok((last = await get())), { what: () => `a value that holds; last: ${JSON.stringify(last)}`, timeoutMs });
  return last as T;
}
