/**
 * No connection storm from any backend (docs/faults.md, "Connections under a cut or a frozen
 * store"): one KV per backend, reached through a TCP proxy that counts the connections it accepts,
 * works as a node at I = 100 ms does (a few operations every 100 ms, each bounded at I/2), while
 * the network to the store is cut for 3 s (nothing forwarded, nothing refused), while the store
 * is frozen for 3 s (SIGSTOP), while it is down for 3 s (connections reset, then refused, as in a
 * restart), and while every answer comes late for 3 s (the network delays each chunk by three
 * times the operations' deadline). Each time, the KV opens at most a few connections per second,
 * and answers again soon after the store does.
 *
 * Adding a backend is one row of {@link BACKENDS}.
 */
import { connectStore, type KV } from '@roster/kv-adapter';
import { LocalEtcd, LocalMariaDB, LocalNats, LocalPostgres, LocalRedis } from '@roster/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './support/tcpProxy.js';

/** A store started for the test. */
interface RunningStore {
  /** Its client port. */
  readonly port: number;
  /** Its URL with the client port replaced by `port` (the proxy's). */
  url(port: number): string;
  /** SIGSTOP of the whole server. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/** One backend under test. */
interface Backend {
  readonly name: string;
  start(): Promise<RunningStore>;
}

const ETCD = process.env.ROSTER_ETCD_BINARY ?? '/usr/bin/etcd';

const BACKENDS: readonly Backend[] = [
  {
    name: 'redis',
    async start() {
      const server = await LocalRedis.start();
      return { port: server.port, url: (port) => `redis://127.0.0.1:${port}`, freeze: () => server.pause(), thaw: () => server.resume(), stop: () => server.stop() };
    },
  },
  {
    name: 'postgres',
    async start() {
      const server = await LocalPostgres.start();
      return { port: server.port, url: (port) => withPort(server.url, port), freeze: () => server.pause(), thaw: () => server.resume(), stop: () => server.destroy() };
    },
  },
  {
    name: 'etcd',
    async start() {
      const etcd = await LocalEtcd.start({ binary: ETCD });
      const member = etcd.members[0]!;
      return { port: member.port, url: (port) => `etcd://127.0.0.1:${port}`, freeze: () => etcd.pause(member), thaw: () => etcd.resume(member), stop: () => etcd.stop() };
    },
  },
  {
    name: 'nats',
    async start() {
      const server = await LocalNats.start();
      return { port: server.port, url: (port) => withPort(server.url('connections'), port), freeze: () => server.freeze(), thaw: () => server.thaw(), stop: () => server.stop() };
    },
  },
  {
    name: 'mariadb',
    async start() {
      const server = await LocalMariaDB.start();
      return { port: server.port, url: (port) => withPort(server.url, port), freeze: () => server.pause(), thaw: () => server.resume(), stop: () => server.destroy() };
    },
  },
];

/** A node's cadence: I = 100 ms, each operation bounded at I/2. */
const INTERVAL_MS = 100;
const COMMAND_TIMEOUT_MS = 50;
const FAULT_MS = 3000;
/** The latency of a slow network: three times the operations' deadline. */
const SLOW_MS = 3 * COMMAND_TIMEOUT_MS;
/** The bound: new connections per second during a fault (measured: about 1 or less; see docs/faults.md). */
const MAX_CONNECTS_PER_S = 5;
/** How soon after the fault an operation must succeed again (generous: a loaded 2-core machine). */
const RECOVERY_BOUND_MS = 4000;

const running = new Map<string, RunningStore>();

beforeAll(async () => {
  await Promise.all(BACKENDS.map(async (backend) => running.set(backend.name, await backend.start())));
});

afterAll(async () => {
  await Promise.all([...running.values()].map((store) => store.stop()));
});

// The backends run side by side (each its own server, proxy and KV): the counts do not depend on timing.
describe.concurrent('every backend', () => {
  it.for(BACKENDS.map((backend) => backend.name))('%s opens at most a few connections per second while the network is cut or slow, the store frozen or down, and answers again after', async (name, { expect }) => {
    const store = running.get(name)!;
    const proxy = await startTcpProxy(store.port);
    const kv = await connectStore(store.url(proxy.port), { commandTimeoutMs: COMMAND_TIMEOUT_MS, connectTimeoutMs: 5000 });
    const load = startLoad(kv, name);
    try {
      await load.answered(RECOVERY_BOUND_MS);

      const cut = await during(proxy, () => proxy.setCut(true), () => proxy.setCut(false));
      const afterCut = await load.answered(RECOVERY_BOUND_MS);

      const frozen = await during(proxy, () => store.freeze(), () => store.thaw());
      const afterFreeze = await load.answered(RECOVERY_BOUND_MS);

      // Down, as a restart: every connection reset, new ones refused.
      const down = await during(proxy, () => (proxy.dropAll(), proxy.setRefusing(true)), () => proxy.setRefusing(false));
      const afterDown = await load.answered(RECOVERY_BOUND_MS);

      // Slow: every answer later than the operations' deadline.
      const slow = await during(proxy, () => proxy.setLatency(SLOW_MS), () => proxy.setLatency(0));
      const afterSlow = await load.answered(RECOVERY_BOUND_MS);

      process.stdout.write(`new connections (accepted by the proxy) ${name}: cut ${rate(cut)}/s (${cut} in ${FAULT_MS / 1000} s), answering ${afterCut} ms after; frozen ${rate(frozen)}/s (${frozen}), answering ${afterFreeze} ms after; down ${rate(down)}/s (${down}), answering ${afterDown} ms after; slow ${rate(slow)}/s (${slow}), answering ${afterSlow} ms after; ${load.failed} operations failed\n`);
      // The load really met the faults: operations failed.
      expect(load.failed).toBeGreaterThan(0);
      expect(cut / (FAULT_MS / 1000)).toBeLessThanOrEqual(MAX_CONNECTS_PER_S);
      expect(frozen / (FAULT_MS / 1000)).toBeLessThanOrEqual(MAX_CONNECTS_PER_S);
      expect(down / (FAULT_MS / 1000)).toBeLessThanOrEqual(MAX_CONNECTS_PER_S);
      expect(slow / (FAULT_MS / 1000)).toBeLessThanOrEqual(MAX_CONNECTS_PER_S);
    } finally {
      store.thaw();
      await load.stop();
      await kv.close();
      await proxy.close();
    }
  });
});

/** Connections accepted by `proxy` from `begin()` until `end()`, FAULT_MS later. */
async function during(proxy: TcpProxy, begin: () => void, end: () => void): Promise<number> {
  const before = proxy.accepted;
  begin();
  try {
    await sleep(FAULT_MS);
    return proxy.accepted - before;
  } finally {
    end();
  }
}

interface Load {
  /** Resolves with the ms until an operation started from now succeeds; rejects after `withinMs`. */
  answered(withinMs: number): Promise<number>;
  readonly failed: number;
  stop(): Promise<void>;
}

/** A node's worth of operations: every INTERVAL_MS, a write, a read, an append and a compare-and-set. */
function startLoad(kv: KV, name: string): Load {
  let stopped = false;
  let failed = 0;
  let lastSuccessStartedAt = 0;
  let round = 0;
  const op = async (run: () => Promise<unknown>): Promise<void> => {
    const startedAt = Date.now();
    try {
      await run();
      lastSuccessStartedAt = Math.max(lastSuccessStartedAt, startedAt);
    } catch {
      failed++;
    }
  };
  const loop = (async () => {
    while (!stopped) {
      const n = round++;
      void op(() => kv.set(`${name}/beat`, String(n)));
      void op(() => kv.get(`${name}/beat`));
      void op(() => kv.append(`${name}/log ${n % 10}`, '.'));
      void op(() => kv.compareAndSet(`${name}/lock`, null, 'me'));
      await sleep(INTERVAL_MS);
    }
  })();
  return {
    get failed() {
      return failed;
    },
    async answered(withinMs) {
      const from = Date.now();
      while (lastSuccessStartedAt < from) {
        if (Date.now() - from > withinMs) throw new Error(`${name}: no operation succeeded within ${withinMs} ms`);
        await sleep(20);
      }
      return lastSuccessStartedAt - from;
    },
    async stop() {
      stopped = true;
      await loop;
      await sleep(COMMAND_TIMEOUT_MS * 4);
    },
  };
}

function rate(count: number): string {
  return (count / (FAULT_MS / 1000)).toFixed(1);
}

function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
