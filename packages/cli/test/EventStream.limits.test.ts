import { get, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_EVENT_CLIENTS, EventStream } from '../src/node/EventStream.js';
import type { NodeEvent } from '../src/node/nodeEvents.js';
import { StatusPage, type NodeStatus } from '../src/node/StatusPage.js';
import { waitFor } from '@roster/testing';

const status = (): NodeStatus => ({
  id: 'web-1',
  group: 'billing',
  env: 'dev',
  store: 'redis://127.0.0.1:6379',
  state: 'running',
  role: 'follower',
  leader: null,
  members: { version: 0, list: [] },
  latency: { storeRoundTripMs: null, windowReadMs: null, pongRoundTripMs: null },
  intervalMs: 1000,
  timeoutMs: 5000,
  probes: { healthz: { ok: true, reason: 'ok' }, readyz: { ok: false, reason: 'no leader known' } },
  storeHealth: { reachable: true, lastSuccessAgoMs: 1, lastError: null, inFlight: 0 },
  stats: {},
  recent: [],
});

const started: NodeEvent = { ts: 1, id: 'web-1', event: 'role', role: 'follower', previous: null, reason: 'started' };

function until(predicate: () => boolean, what: () => string, limitMs = 10_000): Promise<number> {
  return waitFor(predicate, { what, timeoutMs: limitMs, everyMs: 5 });
}

/** Opens `GET url` and resolves with the response head (the body keeps streaming). */
function open(url: string, accept?: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: accept ? { accept } : {} }, resolve);
    request.on('error', reject);
  });
}

let page: StatusPage | undefined;
const responses: IncomingMessage[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const r of responses.splice(0)) r.destroy();
  for (const s of sockets.splice(0)) s.destroy();
  await page?.close();
  page = undefined;
});

describe('/events stays bounded with many clients', () => {
  it(`admits ${DEFAULT_MAX_EVENT_CLIENTS} clients at once and answers 503 with retry-after to the others, of 200`, async () => {
    const stream = new EventStream('web-1', status);
    page = await StatusPage.listen('127.0.0.1', 0, status, { events: stream });
    stream.publish(started);
    stream.open();

    const heads = await Promise.all(
      Array.from({ length: 200 }, (_, i) => open(`${page!.url}events`, i % 2 === 0 ? 'text/event-stream' : undefined)),
    );
    responses.push(...heads);
    const codes = heads.map((h) => h.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(DEFAULT_MAX_EVENT_CLIENTS);
    expect(codes.filter((c) => c === 503)).toHaveLength(200 - DEFAULT_MAX_EVENT_CLIENTS);
    expect(heads.find((h) => h.statusCode === 503)!.headers['retry-after']).toBe('5');
    expect(stream.clients).toBe(DEFAULT_MAX_EVENT_CLIENTS);

    // The rest of the page still answers while the streams are full.
    const json = await open(`${page.url}status.json`);
    responses.push(json);
    expect(json.statusCode).toBe(200);

    // A client that leaves makes room for the next one.
    heads.find((h) => h.statusCode === 200)!.destroy();
    await until(() => stream.clients === DEFAULT_MAX_EVENT_CLIENTS - 1, () => `${stream.clients} clients`);
    const next = await open(`${page.url}events`);
    responses.push(next);
    expect(next.statusCode).toBe(200);
  });

  it('takes its cap from maxClients', async () => {
    const stream = new EventStream('web-1', status, { maxClients: 2 });
    page = await StatusPage.listen('127.0.0.1', 0, status, { events: stream });
    const heads = await Promise.all([1, 2, 3].map(() => open(`${page!.url}events`)));
    responses.push(...heads);
    expect(heads.map((h) => h.statusCode).sort()).toEqual([200, 200, 503]);
  });

  it('drops a client that never reads once it is more than 1 MiB behind, and keeps serving the others', async () => {
    const stream = new EventStream('web-1', status);
    page = await StatusPage.listen('127.0.0.1', 0, status, { events: stream });
    stream.publish(started);
    stream.open();
    const { port } = new URL(page.url);
    const stuck = connect({ host: '127.0.0.1', port: Number(port) });
    sockets.push(stuck);
    await new Promise<void>((resolve) => stuck.once('connect', resolve));
    stuck.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
    stuck.pause(); // reads nothing from now on
    const live = await open(`${page.url}events`);
    responses.push(live);
    let received = 0;
    live.on('data', (chunk: Buffer) => (received += chunk.length));
    await until(() => stream.clients === 2, () => `${stream.clients} clients`);

    // About 40 MB of events: far more than the socket buffers can absorb for the stuck client.
    const members = Array.from({ length: 500 }, (_, i) => `node-${i.toString().padStart(5, '0')}`);
    for (let version = 1; version <= 4000 && stream.clients === 2; version++) {
      stream.publish({ ts: version, id: 'web-1', event: 'members', version, members, added: [], removed: [] });
      if (version % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await until(() => stream.clients === 1, () => `${stream.clients} clients`);
    expect(received).toBeGreaterThan(0);
    expect(live.destroyed).toBe(false);
  });
});
