import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNode, type RosterNode } from '@roster/election';
import { MemoryKV } from '@roster/kv-adapter';
import { MemoryLogger } from '@roster/testing';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsHandler } from '../src/handlers/createMetricsHandler.js';
import { createProbeHandler } from '../src/handlers/createProbeHandler.js';
import type { HttpHandler } from '../src/handlers/HttpHandler.js';
import { InstrumentedKV } from '../src/metrics/InstrumentedKV.js';
import { PromRosterMetrics } from '../src/metrics/PromRosterMetrics.js';
import { watchNodeMetrics } from '../src/metrics/watchNodeMetrics.js';
import { watchProbes, type NodeProbes } from '../src/probes/watchProbes.js';

const I = 50;
const T = 250;

/** A node:http server that routes by path, as a service would mount the handlers. */
async function serve(routes: Record<string, HttpHandler>): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const route = routes[new URL(request.url ?? '/', 'http://service').pathname];
    if (route) return void route(request, response);
    response.writeHead(404).end('not found\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** One service process: a node on the shared store, its metrics in the service's registry, its endpoints. */
interface Service {
  readonly node: RosterNode;
  readonly probes: NodeProbes;
  readonly registry: Registry;
  readonly jobs: Counter;
  readonly url: string;
  readonly server: Server;
  readonly unwatch: () => void;
}

const store = new MemoryKV();
const services: Service[] = [];

async function service(id: string): Promise<Service> {
  const registry = new Registry();
  const jobs = new Counter({ name: 'billing_jobs_total', help: 'Jobs run.', registers: [registry] });
  const metrics = new PromRosterMetrics({ registry });
  const kv = new InstrumentedKV(store, { metrics, deadlineMs: I / 2 });
  const node = createNode({ store: kv, group: 'billing', env: 'http-test', id, intervalMs: I, timeoutMs: T });
  const probes = watchProbes(node, { store: kv });
  const unwatch = watchNodeMetrics(node, metrics);
  const { url, server } = await serve({
    '/metrics': createMetricsHandler(registry),
    '/healthz': createProbeHandler(probes, 'liveness'),
    '/readyz': createProbeHandler(probes, 'readiness'),
  });
  return { node, probes, registry, jobs, url, server, unwatch };
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; type: string | null; body: string; allow: string | null }> {
  const response = await fetch(url, init);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text(), allow: response.headers.get('allow') };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > limitMs) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  services.push(await service('a'), await service('b'));
});

afterAll(async () => {
  for (const s of services) {
    s.unwatch();
    s.probes.stop();
    s.node.destroy();
    await new Promise((resolve) => s.server.close(resolve));
  }
  await store.close();
});

describe('the handlers on a real node:http server, two nodes on one MemoryKV', () => {
  it('before the nodes start: /healthz 200, /readyz 503, each with a JSON reason', async () => {
    const [a] = services;
    expect(await get(`${a!.url}/healthz`)).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', body: '{"healthy":true,"reason":"the node has not started yet"}\n' });
    expect(await get(`${a!.url}/readyz`)).toMatchObject({ status: 503, body: '{"ready":false,"reason":"the node has not started yet"}\n' });
  });

  it('once a leader lists both: /readyz and /healthz answer 200 on each, and /metrics serves the roster_ metrics beside the service’s own', async () => {
    await Promise.all(services.map((s) => s.node.start()));
    await until(async () => {
      const answers = await Promise.all(services.map((s) => get(`${s.url}/readyz`)));
      return answers.every((r) => r.status === 200);
    }, 'both ready');
    const leader = services.find((s) => s.node.isLeader())!;
    const follower = services.find((s) => s !== leader)!;
    for (const s of services) {
      expect(await get(`${s.url}/readyz`)).toMatchObject({ status: 200, body: '{"ready":true,"reason":"ok"}\n' });
      expect(await get(`${s.url}/healthz`)).toMatchObject({ status: 200, body: '{"healthy":true,"reason":"ok"}\n' });
    }
    leader.jobs.inc(3);
    const scrape = await get(`${leader.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.type).toBe(leader.registry.contentType);
    expect(scrape.body).toContain('billing_jobs_total 3');
    expect(scrape.body).toContain('roster_is_leader 1');
    expect(scrape.body).toContain('roster_members 2');
    expect(scrape.body).toMatch(/roster_store_operations_total\{operation="compareAndSet",outcome="ok"\} [1-9]/);
    await until(async () => (await get(`${follower.url}/metrics`)).body.includes('roster_leader_changes_total 1'), 'the follower saw the leader');
    expect((await get(`${follower.url}/metrics`)).body).toContain('roster_is_leader 0');
  });

  it('HEAD has the headers and no body; anything but GET and HEAD is 405', async () => {
    const [a] = services;
    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const head = await get(`${a!.url}${path}`, { method: 'HEAD' });
      expect([head.status, head.body], path).toEqual([200, '']);
      expect(await get(`${a!.url}${path}`, { method: 'POST' }), path).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    }
  });

  it('a registry that fails to collect is a 500 with the reason, logged once until it works again', async () => {
    const logger = new MemoryLogger();
    let fail = true;
    const registry = { contentType: 'text/plain; version=0.0.4; charset=utf-8', metrics: async () => (fail ? Promise.reject(new Error('collector broke')) : 'up 1\n') };
    const probes = { liveness: () => ({ ok: true, reason: 'ok' }), readiness: (): never => { throw new Error('no state'); } };
    const { url, server } = await serve({ '/metrics': createMetricsHandler(registry, { logger }), '/readyz': createProbeHandler(probes, 'readiness') });
    try {
      expect(await get(`${url}/metrics`)).toMatchObject({ status: 500, body: 'cannot collect the metrics: collector broke\n' });
      expect((await get(`${url}/metrics`)).status).toBe(500);
      fail = false;
      expect(await get(`${url}/metrics`)).toMatchObject({ status: 200, body: 'up 1\n' });
      expect(logger.entries.map((e) => [e.level, e.message])).toEqual([
        ['warn', 'metrics: cannot collect the metrics: collector broke'],
        ['info', 'metrics: collecting works again'],
      ]);
      expect(await get(`${url}/readyz`)).toMatchObject({ status: 500, body: '{"ready":false,"reason":"the probe failed: no state"}\n' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('once a node stops, its /healthz and /readyz answer 503: the node is stopped', async () => {
    const follower = services.find((s) => !s.node.isLeader())!;
    await follower.node.stop();
    expect(await get(`${follower.url}/healthz`)).toMatchObject({ status: 503, body: '{"healthy":false,"reason":"the node is stopped"}\n' });
    expect(await get(`${follower.url}/readyz`)).toMatchObject({ status: 503, body: '{"ready":false,"reason":"the node is stopped"}\n' });
  });
});
