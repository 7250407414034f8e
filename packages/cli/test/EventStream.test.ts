import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream } from '../src/node/EventStream.js';
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
const leader: NodeEvent = { ts: 2, id: 'web-1', event: 'leader', leader: 'web-2', era: 3, nonce: 0, token: '4095' };
const members: NodeEvent = { ts: 3, id: 'web-1', event: 'members', version: 7, members: ['web-1', 'web-2'], added: ['web-1'], removed: [] };

/** One `GET /events`, read line by line. */
class Reader {
  readonly events: NodeEvent[] = [];
  readonly ended: Promise<void>;
  response!: IncomingMessage;
  readonly #request: ClientRequest;
  #partial = '';

  constructor(url: string) {
    let ended!: () => void;
    this.ended = new Promise((resolve) => (ended = resolve));
    this.#request = get(url, (response) => {
      this.response = response;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const parts = (this.#partial + chunk).split('\n');
        this.#partial = parts.pop()!;
        for (const line of parts) this.events.push(JSON.parse(line) as NodeEvent);
      });
      response.on('end', ended);
    });
    this.#request.on('error', () => {});
  }

  close(): void {
    this.#request.destroy();
  }
}

function until(predicate: () => boolean, what: () => string): Promise<number> {
  return waitFor(predicate, { what, timeoutMs: 5000, everyMs: 5 });
}

let page: StatusPage | undefined;
let readers: Reader[] = [];
afterEach(async () => {
  for (const reader of readers) reader.close();
  readers = [];
  await page?.close();
  page = undefined;
});

async function serve(stream: EventStream): Promise<(path?: string) => Reader> {
  page = await StatusPage.listen('127.0.0.1', 0, status, { events: stream });
  return (path = 'events') => {
    const reader = new Reader(`${page!.url}${path}`);
    readers.push(reader);
    return reader;
  };
}

describe('GET /events on the status page', () => {
  it('gives a late client a snapshot of the state, then the live events, as NDJSON', async () => {
    const stream = new EventStream('web-1');
    const connect = await serve(stream);
    for (const event of [started, leader, members]) stream.publish(event);
    stream.open();

    const reader = connect();
    await until(() => reader.events.length === 3, () => JSON.stringify(reader.events));
    expect(reader.response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(reader.events).toEqual([
      { ...started, reason: 'snapshot' },
      leader,
      { ...members, added: ['web-1', 'web-2'], removed: [] },
    ]);

    const change: NodeEvent = { ts: 4, id: 'web-1', event: 'members', version: 8, members: ['web-1'], added: [], removed: ['web-2'] };
    stream.publish(change);
    await until(() => reader.events.length === 4, () => JSON.stringify(reader.events));
    expect(reader.events[3]).toEqual(change);
  });

  it('holds the clients that connect before the node has started until open(), then sends the snapshot', async () => {
    const stream = new EventStream('web-1');
    const connect = await serve(stream);
    const early = connect();
    await until(() => stream.clients === 1, () => 'not attached');
    stream.publish(started);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(early.events).toEqual([]);

    stream.open();
    await until(() => early.events.length === 3, () => JSON.stringify(early.events));
    // No leader and no member list seen yet: the snapshot says so.
    expect(early.events).toEqual([
      { ...started, reason: 'snapshot' },
      { ts: expect.any(Number), id: 'web-1', event: 'leader', leader: null, era: null, nonce: null, token: null },
      { ts: expect.any(Number), id: 'web-1', event: 'members', version: 0, members: [], added: [], removed: [] },
    ]);
  });

  it('serves many clients at once, drops one that disconnects, and ends every stream with `stopped`', async () => {
    const stream = new EventStream('web-1');
    const connect = await serve(stream);
    stream.publish(started);
    stream.open();
    const [a, b, c] = [connect(), connect(), connect()];
    await until(() => [a, b, c].every((r) => r.events.length === 3), () => 'no snapshots');
    expect(stream.clients).toBe(3);

    b.close();
    await until(() => stream.clients === 2, () => `${stream.clients} clients`);
    stream.publish(leader);
    const stopped: NodeEvent = { ts: 9, id: 'web-1', event: 'stopped' };
    stream.publish(stopped);
    await Promise.all([a.ended, c.ended]);
    for (const reader of [a, c]) expect(reader.events.slice(3)).toEqual([leader, stopped]);
    expect(stream.clients).toBe(0);

    // After the stop, a newcomer is told so.
    const late = await fetch(`${page!.url}events`);
    expect(late.status).toBe(503);
  });

  it('answers HEAD with the headers only, and 404 without an event stream', async () => {
    const stream = new EventStream('web-1');
    await serve(stream);
    const head = await fetch(`${page!.url}events`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    await page!.close();
    page = await StatusPage.listen('127.0.0.1', 0, status);
    expect((await fetch(`${page.url}events`)).status).toBe(404);
  });

  it('speaks Server-Sent Events to a client that accepts text/event-stream: the status, the snapshot, then events and status updates', async () => {
    const stream = new EventStream('web-1', status);
    await serve(stream);
    stream.publish(started);
    stream.open();
    const controller = new AbortController();
    const response = await fetch(`${page!.url}events`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.sseClients).toBe(1);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const messages = (): { event: string; data: unknown }[] =>
      text
        .split('\n\n')
        .slice(0, -1)
        .map((block) => {
          const [event, data] = block.split('\n');
          return { event: event!.replace('event: ', ''), data: JSON.parse(data!.replace('data: ', '')) as unknown };
        });
    const readUntil = async (n: number): Promise<void> => {
      while (messages().length < n) text += (await reader.read()).value ?? '';
    };
    await readUntil(4);
    expect(messages().map((m) => m.event)).toEqual(['status', 'node', 'node', 'node']);
    expect(messages()[0]!.data).toEqual(status());
    expect(messages()[1]!.data).toEqual({ ...started, reason: 'snapshot' });

    stream.publish(leader);
    stream.publishStatus({ role: 'leader' });
    await readUntil(6);
    expect(messages().slice(4)).toEqual([
      { event: 'node', data: leader },
      { event: 'status', data: { role: 'leader' } },
    ]);
    controller.abort();
  });
});
