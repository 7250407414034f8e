import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, connectDaemon, type DaemonClient, type DaemonUpdate, type Logger } from '../src/index.js';
import { waitFor } from '@roster/testing';

/** A stand-in for `roster node --status-port`: answers `GET /events` and lets the test write lines. */
class FakeDaemon {
  readonly streams: ServerResponse[] = [];
  requests = 0;
  status = 200;
  /** Lines sent first to every new stream. */
  snapshot: string[] = [];
  #server: Server;

  private constructor(server: Server) {
    this.#server = server;
    server.on('request', (request, response: ServerResponse) => {
      this.requests++;
      if (request.url !== '/events' || this.status !== 200) {
        response.writeHead(request.url !== '/events' ? 404 : this.status).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write(this.snapshot.map((l) => `${l}\n`).join(''));
      this.streams.push(response);
      response.on('close', () => this.streams.splice(this.streams.indexOf(response), 1));
    });
  }

  static async start(port = 0): Promise<FakeDaemon> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return new FakeDaemon(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/`;
  }

  /** Writes `text` as is to every stream. */
  write(text: string): void {
    for (const s of this.streams) s.write(text);
  }

  /** Ends every stream, as a daemon that stops does after `stopped`. */
  endStreams(): void {
    for (const s of [...this.streams]) s.end();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

const ev = (fields: object): string => JSON.stringify({ ts: Date.now(), id: 'n1', ...fields });
const role = (r: string): string => ev({ event: 'role', role: r, previous: null, reason: 'snapshot' });
const leaderLine = (id: string | null, era = 1): string =>
  id === null ? ev({ event: 'leader', leader: null, era: null, nonce: null, token: null }) : ev({ event: 'leader', leader: id, era, nonce: 0, token: String(era * 2048) });
const membersLine = (members: string[], version = 1): string => ev({ event: 'members', version, members, added: members, removed: [] });
const leaderOf = (id: string, era = 1) => ({ id, era, nonce: 0, token: BigInt(era * 2048) });

/** Records every update of a client. */
function record(client: DaemonClient): DaemonUpdate[] {
  const seen: DaemonUpdate[] = [];
  client.watch((u) => seen.push(u));
  return seen;
}

function recordingLogger(): Logger & { entries: { level: string; fields: object; message?: string }[] } {
  const entries: { level: string; fields: object; message?: string }[] = [];
  const at = (level: string) => (fields: object, message?: string) => void entries.push({ level, fields, message });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function until(predicate: () => boolean, what: () => unknown): Promise<number> {
  return waitFor(predicate, { what: () => JSON.stringify(what(), (_, v) => (typeof v === 'bigint' ? `${v}n` : v)), timeoutMs: 5000, everyMs: 5 });
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function daemon(port?: number): Promise<FakeDaemon> {
  const d = await FakeDaemon.start(port);
  cleanup.push(() => d.close());
  return d;
}

function connect(...args: Parameters<typeof connectDaemon>): DaemonClient {
  const client = connectDaemon(...args);
  cleanup.push(() => client.close());
  return client;
}

describe('connectDaemon: a thin client of the daemon’s event stream', () => {
  it('reads the snapshot as connected, role, leader and one add per member, and keeps them as its state', async () => {
    const d = await daemon();
    d.snapshot = [role('follower'), leaderLine('n2'), membersLine(['n1', 'n2'])];
    const client = connect(d.url);
    const seen = record(client);
    await until(() => seen.length === 5, () => seen);
    expect(seen).toEqual([
      { type: 'connected' },
      { type: 'role', role: 'follower' },
      { type: 'leader', leader: leaderOf('n2') },
      { type: 'add', id: 'n1' },
      { type: 'add', id: 'n2' },
    ]);
    expect(client.url).toBe(`${d.url}events`);
    expect(client.connected).toBe(true);
    expect(client.role).toBe('follower');
    expect(client.leader).toEqual(leaderOf('n2'));
    expect(client.members).toEqual(['n1', 'n2']);
  });

  it('turns live events into deletes, adds and a goodbye before the leader changes', async () => {
    const d = await daemon();
    d.snapshot = [role('follower'), leaderLine('n2'), membersLine(['n1', 'n2'])];
    const client = connect(d.url);
    const seen = record(client);
    await until(() => seen.length === 5, () => seen);
    seen.length = 0;

    d.write(`${membersLine(['n1'], 7)}\n${leaderLine('n1', 2)}\n${ev({ event: 'role', role: 'leader', previous: 'candidate', reason: 'confirmed' })}\n`);
    await until(() => seen.length === 4, () => seen);
    expect(seen).toEqual([
      { type: 'delete', id: 'n2' },
      { type: 'goodbye', leader: leaderOf('n2') },
      { type: 'leader', leader: leaderOf('n1', 2) },
      { type: 'role', role: 'leader' },
    ]);
  });

  it('skips lines that are not events of the contract, reports them to the logger, and carries on', async () => {
    const d = await daemon();
    const logger = recordingLogger();
    const client = connect(d.url, { logger });
    const seen = record(client);
    await until(() => client.connected, () => seen);
    d.write(`not json\n${ev({ event: 'members', version: 1, members: 'n1' })}\n${ev({ event: 'sparkles' })}\n`);
    d.write(membersLine(['n3']).slice(0, 20));
    d.write(`${membersLine(['n3']).slice(20)}\n`);
    await until(() => seen.some((u) => u.type === 'add'), () => seen);
    expect(seen).toEqual([{ type: 'connected' }, { type: 'add', id: 'n3' }]);
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings.map((w) => (w.fields as { reason: string }).reason)).toEqual(['not JSON', '`members` is not a list of ids']);
    expect(logger.entries.some((e) => e.level === 'debug' && (e.fields as { event?: string }).event === 'sparkles')).toBe(true);
  });

  it('when the daemon restarts: disconnected (the role unknown meanwhile), connected again, the role, and only the differences', async () => {
    const d = await daemon();
    d.snapshot = [role('leader'), leaderLine('n2'), membersLine(['n1', 'n2', 'n3'])];
    const client = connect(d.url, { retryMs: 20 });
    const seen = record(client);
    await until(() => client.members.length === 3, () => seen);
    expect(client.role).toBe('leader');
    seen.length = 0;
    let roleWhenDown: string | undefined = 'not seen';
    client.watch((u) => {
      if (u.type === 'disconnected') roleWhenDown = client.role;
    });

    d.write(`${ev({ event: 'stopped' })}\n`);
    d.snapshot = [role('follower'), leaderLine('n2'), membersLine(['n1', 'n2', 'n4'])];
    d.endStreams();
    await until(() => seen.length === 5, () => seen);
    // A daemon that went away may have stopped leading unseen: its role is not kept.
    expect(roleWhenDown).toBeUndefined();
    expect(seen).toEqual([
      { type: 'disconnected', reason: 'the daemon stopped' },
      { type: 'connected' },
      { type: 'role', role: 'follower' },
      { type: 'delete', id: 'n3' },
      { type: 'add', id: 'n4' },
    ]);
    expect(d.requests).toBe(2);
  });

  it('waits for a daemon that is not up yet, warning once, and for one that answers an error', async () => {
    const probe = await FakeDaemon.start();
    const url = probe.url;
    await probe.close();
    const logger = recordingLogger();
    const client = connect(url, { retryMs: 10, logger });
    const seen = record(client);
    await until(() => logger.entries.filter((e) => e.level === 'debug').length >= 2, () => logger.entries);
    expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1);
    expect(seen).toEqual([]);

    const d = await daemon(Number(new URL(url).port));
    d.status = 503;
    await until(() => d.requests >= 2, () => d.requests);
    d.status = 200;
    d.snapshot = [membersLine(['n1'])];
    await until(() => seen.length === 2, () => seen);
    expect(seen).toEqual([{ type: 'connected' }, { type: 'add', id: 'n1' }]);
  });

  it('without reconnect, closes when the link ends, and its iterators end', async () => {
    const d = await daemon();
    d.snapshot = [membersLine(['n1'])];
    const client = connect(d.url, { reconnect: false });
    const updates: DaemonUpdate[] = [];
    const loop = (async () => {
      for await (const u of client.updates()) updates.push(u);
    })();
    await until(() => updates.length === 2, () => updates);
    d.endStreams();
    await loop;
    expect(updates.at(-1)).toEqual({ type: 'disconnected', reason: 'the daemon closed the stream' });
    expect(client.closed).toBe(true);
    expect(d.requests).toBe(1);
  });

  it('close() says disconnected, ends iterators, is idempotent; asyncDispose and the signal close too', async () => {
    const d = await daemon();
    const client = connect(d.url);
    const seen = record(client);
    const iterator = client.updates();
    await until(() => client.connected, () => seen);
    await Promise.all([client.close(), client.close()]);
    expect(seen).toEqual([{ type: 'connected' }, { type: 'disconnected', reason: 'closed' }]);
    expect(await iterator.next()).toEqual({ value: { type: 'connected' }, done: false });
    expect(await iterator.next()).toEqual({ value: { type: 'disconnected', reason: 'closed' }, done: false });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    await until(() => d.streams.length === 0, () => d.streams.length);

    {
      await using disposed = connectDaemon(d.url);
      await until(() => disposed.connected, () => 'not connected');
    }
    await until(() => d.streams.length === 0, () => d.streams.length);

    const controller = new AbortController();
    const aborted = connect(d.url, { signal: controller.signal });
    await until(() => aborted.connected, () => 'not connected');
    controller.abort();
    await until(() => aborted.closed && d.streams.length === 0, () => d.streams.length);
    expect(connectDaemon(d.url, { signal: AbortSignal.abort() }).closed).toBe(true);
  });

  it('an iterator ends (done, no rejection) when its own signal aborts, even while waiting; a watch function that throws is logged and kept', async () => {
    const d = await daemon();
    d.snapshot = [membersLine(['n1', 'n2'])];
    const logger = recordingLogger();
    const client = connect(d.url, { logger });
    let calls = 0;
    client.watch(() => {
      calls++;
      throw new Error('boom');
    });
    const controller = new AbortController();
    const iterator = client.updates({ signal: controller.signal });
    await until(() => calls === 3, () => calls);
    expect(logger.entries.filter((e) => e.level === 'error')).toHaveLength(3);
    controller.abort(new Error('enough'));
    // What it had buffered (the three updates above) is dropped with it.
    expect(await iterator.next()).toEqual({ value: undefined, done: true });

    const waiting = new AbortController();
    const seen: string[] = [];
    const loop = (async () => {
      for await (const u of client.updates({ signal: waiting.signal })) seen.push(u.type);
      return 'ended';
    })();
    await new Promise((resolve) => setImmediate(resolve));
    waiting.abort();
    await expect(loop).resolves.toBe('ended');
    expect(seen).toEqual([]);
    expect(await client.updates({ signal: AbortSignal.abort() }).next()).toEqual({ value: undefined, done: true });
    await client.close();
  });

  it('rejects a URL that is not http: and a retryMs that is not a positive integer, with ConfigError', () => {
    for (const [url, options, field] of [
      ['https://127.0.0.1:8080/', {}, 'url'],
      ['127.0.0.1:8080', {}, 'url'],
      ['not a url', {}, 'url'],
      ['http://127.0.0.1:8080/', { retryMs: 0 }, 'retryMs'],
      ['http://127.0.0.1:8080/', { retryMs: 1.5 }, 'retryMs'],
    ] as const) {
      let thrown: unknown;
      try {
        connectDaemon(url, options);
      } catch (error) {
        thrown = error;
      }
      expect(ConfigError.is(thrown), String(url)).toBe(true);
      expect(thrown).toMatchObject({ code: 'CONFIG_INVALID', field });
    }
    expect(() => connectDaemon('http://127.0.0.1:8080/', { retryMs: -1 })).toThrow('config: Expected `retryMs` to be a positive integer of milliseconds, got -1');
  });
});
