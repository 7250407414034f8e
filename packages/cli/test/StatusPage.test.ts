import { afterEach, describe, expect, it } from 'vitest';
import { RecentLines, StatusPage, type NodeStatus } from '../src/node/StatusPage.js';

const status: NodeStatus = {
  id: 'web-1',
  cluster: 'billing',
  env: 'dev',
  store: 'redis://app:***@127.0.0.1:6379',
  state: 'running',
  role: 'follower',
  leader: { id: 'web-2', era: 3, nonce: 0, token: '4095' },
  members: { version: 12, list: [{ id: 'web-1', weight: 1 }, { id: 'web-2', weight: 4 }] },
  latency: { windowReadMs: 0.8, pongRoundTripMs: null },
  intervalMs: 1000,
  timeoutMs: 5000,
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

  it('serves a self-refreshing HTML page at /, with everything escaped', async () => {
    page = await StatusPage.listen('127.0.0.1', 0, () => status);
    const html = await (await fetch(page.url)).text();
    expect(html).toContain('<meta http-equiv="refresh" content="2">');
    expect(html).toContain('<tr><th>leader</th><td>web-2, era 3, token 4095</td></tr>');
    expect(html).toContain('<li>web-1 (this node)</li><li>web-2 ×4</li>');
    expect(html).toContain('leader-window read 0.8 ms, PING→PONG –');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
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
