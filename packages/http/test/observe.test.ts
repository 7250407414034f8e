import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNode, type RosterNode } from '@roster/election';
import { ConfigError, MemoryKV, type KV } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { Counter, Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { observe, type Observation } from '../src/observe.js';

const I = 50;
const T = 250;
const ENV = 'observe-test';

/** A service process: its registry with its own metric, one node observed, the routes on node:http. */
interface Service {
  readonly roster: Observation;
  readonly node: RosterNode;
  readonly url: string;
  readonly server: Server;
}

const store = new MemoryKV();
const services: Service[] = [];

/** Set to have the next compare-and-set at a leader key meet a stray write, once. */
let strayNextWrite = false;

/** `kv` with a stray client that writes at a leader key just before one compare-and-set there, when asked. */
function racedOnDemand(kv: KV): KV {
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'compareAndSet') return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      return async (key: string, expected: string | null, next: string, options?: object) => {
        if (strayNextWrite && key.includes('/leader ')) {
          strayNextWrite = false;
          await target.set(key, 'not a broadcast');
        }
        return target.compareAndSet(key, expected, next, options);
      };
    },
  });
}

/** The service's wiring, as the README shows it: the registry, one call, the routes. */
async function service(id: string, kv: KV = store): Promise<Service> {
  const registry = new Registry();
  new Counter({ name: 'billing_jobs_total', help: 'Jobs run.', registers: [registry] });
  const roster = observe({ registry });
  const node = createNode({ store: roster.instrument(kv), group: 'billing', env: ENV, id, intervalMs: I, timeoutMs: T });
  roster.attach(node);
  const server = createServer((request, response) => {
    const route = roster.routes[new URL(request.url ?? '/', 'http://service').pathname as keyof typeof roster.routes];
    if (route) return void route(request, response);
    response.writeHead(404).end('not found\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const s = { roster, node, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  services.push(s);
  return s;
}

/** One scrape of `/metrics`: the text, and the value of a sample line such as `roster_is_leader`. */
async function scrape(s: Service): Promise<{ text: string; value: (series: string) => number | undefined }> {
  const response = await fetch(`${s.url}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return {
    text,
    value: (series) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > limitMs) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

afterAll(async () => {
  for (const s of services) {
    s.roster.close();
    s.node.destroy();
    await new Promise((resolve) => s.server.close(resolve));
  }
  await store.close();
});

const MASTER = 'leader_election_master_status{name="billing"}';
const SLOWPATH = 'leader_election_slowpath_total{name="billing"}';

describe('observe(): a service’s metrics, probes and routes from one node and one registry', () => {
  it('on a real node:http server: the probes follow the node, /metrics serves the roster_ series and client-go’s beside the service’s own', async () => {
    const a = await service('a', racedOnDemand(store));
    const b = await service('b');
    const ready = await fetch(`${a.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([503, { ready: false, reason: 'the node has not started yet' }]);

    await a.node.start();
    await until(() => a.node.isLeader(), 'a leads');
    await b.node.start();
    await until(async () => (await Promise.all([a, b].map((s) => fetch(`${s.url}/readyz`)))).every((r) => r.status === 200), 'both ready');
    const healthz = await fetch(`${b.url}/healthz`);
    expect([healthz.status, await healthz.json()]).toEqual([200, { healthy: true, reason: 'ok' }]);
    // The probes' timing is the node's: nothing was passed twice.
    expect(b.roster.probes.input()).toMatchObject({ intervalMs: I, timeoutMs: T, state: 'running', listed: true });

    const leader = await scrape(a);
    expect(leader.text).toContain('# TYPE billing_jobs_total counter');
    expect(leader.text).toContain('# TYPE leader_election_master_status gauge');
    expect(leader.text).toContain('# TYPE leader_election_slowpath_total counter');
    expect(leader.value(MASTER)).toBe(1);
    expect(leader.value(SLOWPATH)).toBe(0);
    expect(leader.value('roster_is_leader')).toBe(1);
    expect(leader.value('roster_store_operations_total{operation="compareAndSet",outcome="ok"}')).toBeGreaterThan(0);
    const follower = await scrape(b);
    expect(follower.value(MASTER)).toBe(0);
    expect(follower.value(SLOWPATH)).toBe(0);
    expect(follower.value('roster_is_leader')).toBe(0);
  });

  it('a renewal that meets another write at the leader key is client-go’s slow path; a hand-over moves master_status', async () => {
    const [a, b] = services as [Service, Service];
    // A stray write at the leader's key just before its next compare-and-set: it meets it, and reads again.
    strayNextWrite = true;
    await until(async () => ((await scrape(a)).value(SLOWPATH) ?? 0) >= 1, 'a slow renewal counted');
    expect(a.node.isLeader()).toBe(true);
    expect((await scrape(b)).value(SLOWPATH)).toBe(0);

    await a.node.resign();
    await until(() => b.node.isLeader(), 'b leads');
    await until(async () => (await scrape(b)).value(MASTER) === 1, 'b’s gauge');
    expect((await scrape(a)).value(MASTER)).toBe(0);
  });
});

describe('observe() before and around the node', () => {
  it('before a node is attached: the metrics are there, the probes say connecting (live, not ready)', async () => {
    const roster = observe();
    expect(roster.registry).toBe(roster.metrics.registry);
    expect(roster.probes.liveness()).toEqual({ ok: true, reason: 'connecting to the store' });
    expect(roster.probes.readiness()).toEqual({ ok: false, reason: 'connecting to the store' });
    expect(await roster.registry.metrics()).toContain('roster_is_leader 0');
    roster.close();
    roster.close();
  });

  it('refuses a node before its store is instrumented, a second store and a second node, with ConfigError', () => {
    const roster = observe();
    const node = createNode({ store: new MemoryKV(), group: 'billing', env: ENV, id: 'x' });
    const caught = (f: () => unknown): unknown => {
      try {
        f();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const early = caught(() => roster.attach(node));
    expect(ConfigError.is(early)).toBe(true);
    expect(early).toMatchObject({ code: 'CONFIG_INVALID', field: 'node' });
    const kv = roster.instrument(new MemoryKV());
    expect(caught(() => roster.instrument(new MemoryKV()))).toMatchObject({ code: 'CONFIG_INVALID', field: 'store' });
    roster.attach(createNode({ store: kv, group: 'billing', env: ENV, id: 'y' }));
    expect(caught(() => roster.attach(node))).toMatchObject({ code: 'CONFIG_INVALID', field: 'node' });
    roster[Symbol.dispose]();
  });

  it('the store’s deadline is the node’s operationTimeoutMs: a later answer is a timeout', async () => {
    const clock = new VirtualClock();
    const faults = new FaultInjector({ clock, seed: 1 });
    const roster = observe({ clock });
    const kv = roster.instrument(faults.view(new MemoryKV({ clock })));
    const node = createNode({ store: kv, group: 'billing', env: ENV, id: 'z', intervalMs: 100, clock });
    expect(node.settings.operationTimeoutMs).toBe(50);
    roster.attach(node);
    faults.latency({ minMs: 80, maxMs: 80 });
    const read = kv.get('some key');
    await clock.advance(100);
    await read;
    expect(await roster.registry.metrics()).toMatch(/roster_store_errors_total\{kind="timeout"\} 1/);
    expect(kv.health.lastError?.kind).toBe('timeout');
    roster.close();
  });
});
