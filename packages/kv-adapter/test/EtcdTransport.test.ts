import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../src/index.js';
import { realClock } from '../src/clock/RealClock.js';
import { silentLogger } from '../src/logger.js';
import { EtcdTransport } from '../src/etcd/EtcdTransport.js';

/**
 * EtcdTransport's connections, against a local HTTP server standing in for a member's gateway
 * (answering `{}` after a delay chosen per request, or never), which counts the connections it
 * accepts.
 */
interface Member {
  readonly port: number;
  readonly connections: number;
  /** The bodies of the requests received, in order. */
  readonly received: string[];
  /** How long the next requests wait for their answer; `Infinity`: never answered. */
  delayMs: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function startMember(): Promise<Member> {
  let connections = 0;
  const member = {
    port: 0,
    delayMs: 0,
    received: [] as string[],
    get connections() {
      return connections;
    },
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const delay = member.delayMs;
    const body: Buffer[] = [];
    request.on('data', (chunk: Buffer) => body.push(chunk));
    request.on('end', () => {
      member.received.push(Buffer.concat(body).toString());
      if (delay === Infinity) return;
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'), delay);
    });
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  member.port = (server.address() as { port: number }).port;
  return member;
}

function transport(member: Member, maxSockets = 256): EtcdTransport {
  return new EtcdTransport({
    endpoints: [{ host: '127.0.0.1', port: member.port }],
    tls: undefined,
    username: undefined,
    password: undefined,
    clock: realClock,
    logger: silentLogger,
    target: `etcd://127.0.0.1:${member.port}`,
    maxSockets,
  });
}

const read = (timeoutMs: number, body: object = {}) => ({ path: '/v3/kv/range', body, write: false, deadlineAt: realClock.now() + timeoutMs, what: 'get' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EtcdTransport connections', () => {
  it('a request that timed out keeps its connection: the late answer frees it for the next request', async () => {
    const member = await startMember();
    const etcd = transport(member);
    try {
      await etcd.send(read(1000));
      member.delayMs = 150;
      const error = await etcd.send(read(30)).catch((e: unknown) => e);
      expect(StoreUnavailableError.is(error) && error.timedOut).toBe(true);
      // Sent at once: nothing says it was the client's queue.
      expect((error as StoreUnavailableError).queued).toBe(false);
      await sleep(250);
      member.delayMs = 0;
      await etcd.send(read(1000));
      expect(member.connections).toBe(1);
    } finally {
      etcd.close();
    }
  });

  it('while a member does not answer, new connections to it are paced, not one per request', async () => {
    const member = await startMember();
    const etcd = transport(member);
    try {
      await etcd.send(read(1000));
      member.delayMs = Infinity;
      const started = Date.now();
      let failed = 0;
      // Four requests every 50 ms for a second, each with a 30 ms deadline: 80 requests.
      while (Date.now() - started < 1000) {
        await Promise.all([0, 1, 2, 3].map(() => etcd.send(read(30)).catch(() => failed++)));
        await sleep(20);
      }
      expect(failed).toBeGreaterThan(40);
      // The back-off allows 5 in the first second (at once, then ~100, ~300, ~700 ms), plus the
      // few opened as the first timeouts came in.
      expect(member.connections).toBeLessThanOrEqual(8);
      // Answering again: the next request is served.
      member.delayMs = 0;
      await sleep(600);
      await etcd.send(read(1000));
    } finally {
      etcd.close();
    }
  });

  it("a request whose caller's deadline passes while it waits for a connection is never sent, and its timeout says so", async () => {
    const member = await startMember();
    const etcd = transport(member, 1);
    try {
      member.delayMs = 200;
      const busy = etcd.send(read(1000, { n: 'busy' }));
      await sleep(20);
      const deadline = new AbortController();
      const waiting = etcd.send({ ...read(1000, { n: 'waiting' }), signal: deadline.signal }).catch((e: unknown) => e);
      await sleep(10);
      const timeout = new StoreUnavailableError('PING took longer than 30 ms', { timedOut: true });
      deadline.abort(timeout);
      // Marked in the abort's dispatch, before the caller sees it.
      expect(timeout.queued).toBe(true);
      expect(await waiting).toBe(timeout);
      await busy;
      expect(member.received.map((b) => (JSON.parse(b) as { n: string }).n)).toEqual(['busy']);
    } finally {
      etcd.close();
    }
  });

  it('with every connection busy, an urgent request (a lease renewal) is sent before the others waiting, even older', async () => {
    const member = await startMember();
    const etcd = transport(member, 1);
    try {
      await etcd.send(read(1000, { n: 'first' }));
      member.delayMs = 100;
      const busy = etcd.send(read(1000, { n: 'busy' }));
      await sleep(20);
      const renew = etcd.send({ ...read(1000, { n: 'renew' }), urgent: true });
      await sleep(10);
      member.delayMs = 0;
      const ping = etcd.send(read(1000, { n: 'ping' }));
      await Promise.all([busy, renew, ping]);
      expect(member.received.map((b) => (JSON.parse(b) as { n: string }).n)).toEqual(['first', 'busy', 'renew', 'ping']);
    } finally {
      etcd.close();
    }
  });

  it('with every connection busy, the newest waiting request is sent first, and the oldest reach their deadlines unsent (adaptive LIFO)', async () => {
    const member = await startMember();
    const etcd = transport(member, 1);
    try {
      await etcd.send(read(1000, { n: 'first' }));
      member.delayMs = 200;
      // One request holds the only connection for 200 ms; three wait for it, oldest first.
      const busy = etcd.send(read(1000, { n: 'busy' }));
      await sleep(20);
      const oldest = etcd.send(read(150, { n: 'oldest' })).catch((e: unknown) => e);
      await sleep(10);
      const middle = etcd.send(read(1000, { n: 'middle' }));
      await sleep(10);
      member.delayMs = 0;
      const newest = etcd.send(read(1000, { n: 'newest' }));
      await Promise.all([busy, middle, newest]);
      // 'oldest' timed out waiting, never sent; 'newest' went before 'middle'.
      const error = await oldest;
      expect(StoreUnavailableError.is(error) && error.timedOut && error.queued).toBe(true);
      expect(member.received.map((b) => (JSON.parse(b) as { n: string }).n)).toEqual(['first', 'busy', 'newest', 'middle']);
      expect(member.connections).toBe(1);
    } finally {
      etcd.close();
    }
  });
});
