import { createMetricsHandler, createProbeHandler } from '@roster/http';
import { afterEach, describe, expect, it } from 'vitest';
import { RecentLines, StatusPage, type NodeStatus } from '../src/node/StatusPage.js';

const status: NodeStatus = {
  id: 'web-1',
  group: 'billing',
  env: 'dev',
  store: 'redis://app:***@127.0.0.1:6379',
  state: 'running',
  role: 'follower',
  leader: { id: 'web-2', era: 3, nonce: 0, token: '4095' },
  members: { version: 12, list: [{ id: 'web-1', weight: 1, pongRoundTripMs: 2.5 }, { id: 'web-2', weight: 4, pongRoundTripMs: null }] },
  latency: { storeRoundTripMs: 0.4, windowReadMs: 0.8, pongRoundTripMs: 2.5 },
  intervalMs: 1000,
  timeoutMs: 5000,
  probes: { healthz: { ok: true, reason: 'ok' }, readyz: { ok: false, reason: 'no leader known' } },
  storeHealth: { reachable: true, lastSuccessAgoMs: 12, lastError: null, inFlight: 0 },
  stats: { ping: 3 },
  recent: ['12:00:00.000 role follower (started)', '<script>alert(1)</script>'],
};

let page: StatusPage | undefined;
afterEach(async () => {
  await page?.close();
  page = undefined;
});

describe('the status page of roster node', () => {
  it('serves the status as JSON at /status.json', async () => {
    page = await StatusPage.listen('127.0.0.1', 0, () => status);
    expect(page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetch(`${page.url}status.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(status);
  });

  it('serves a self-contained live dashboard at /: no reload, no external asset, the status embedded safely', async () => {
    page = await StatusPage.listen('127.0.0.1', 0, () => status);
    const html = await (await fetch(page.url)).text();
    expect(html).not.toContain('http-equiv="refresh"');
    expect(html).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
    expect(html).toContain('new EventSource("/events")');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=/);
    const embedded = /<script type="application\/json" id="initial">(.*?)<\/script>/s.exec(html)![1]!;
    expect(JSON.parse(embedded)).toEqual(status);
    expect(embedded).not.toContain('<script>alert(1)');
  });

  it('answers /healthz and /readyz with 200 or 503 and a JSON reason, and serves /metrics', async () => {
    const results = { liveness: () => status.probes.healthz, readiness: () => status.probes.readyz };
    const probes = { healthz: createProbeHandler(results, 'liveness'), readyz: createProbeHandler(results, 'readiness') };
    const metrics = createMetricsHandler({ contentType: 'text/plain; version=0.0.4; charset=utf-8', metrics: async () => 'roster_is_leader 0\n' });
    page = await StatusPage.listen('127.0.0.1', 0, () => status, { probes, metrics });
    const healthz = await fetch(`${page.url}healthz`);
    expect([healthz.status, await healthz.json()]).toEqual([200, { healthy: true, reason: 'ok' }]);
    const readyz = await fetch(`${page.url}readyz`);
    expect([readyz.status, await readyz.json()]).toEqual([503, { ready: false, reason: 'no leader known' }]);
    const scrape = await fetch(`${page.url}metrics`);
    expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await scrape.text()).toBe('roster_is_leader 0\n');
  });

  it('answers 404 elsewhere and 405 to anything but GET and HEAD', async () => {
    page = await StatusPage.listen('127.0.0.1', 0, () => status);
    expect((await fetch(`${page.url}metrics`)).status).toBe(404);
    expect((await fetch(page.url, { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${page.url}status.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('a port in use is an error at listen', async () => {
    page = await StatusPage.listen('127.0.0.1', 0, () => status);
    const port = Number(new URL(page.url).port);
    await expect(StatusPage.listen('127.0.0.1', port, () => status)).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('RecentLines keeps the last lines only', () => {
    const recent = new RecentLines(2);
    for (const line of ['a', 'b', 'c']) recent.push(line);
    expect(recent.lines).toEqual(['b', 'c']);
  });
});
