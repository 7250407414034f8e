/**
 * A small in-process TCP proxy for tests: sits between clients (e.g. `roster node` processes) and
 * a server (Redis), adds latency to every chunk in both directions, and drops every connection,
 * refuses new ones or silently holds all traffic (a cut) on demand, as a slow and lossy network
 * would. It counts the connections it accepts.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A running {@link startTcpProxy}. */
export interface TcpProxy {
  /** The port clients connect to (on 127.0.0.1). */
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Delay each chunk by `ms` from now on (order is kept). */
  setLatency(ms: number): void;
  /** Destroys every open connection (both sides), as a network cut; new ones are accepted. */
  dropAll(): void;
  /** Refuses (destroys at once) new connections while `true`: the network is down. */
  setRefusing(refusing: boolean): void;
  /**
   * Cuts the network silently while `true`: nothing is forwarded either way and nothing is
   * refused (connections stay open, new ones are accepted but not connected onward), as when
   * packets are lost; on `false` what was held is delivered, as TCP retransmits it.
   */
  setCut(cut: boolean): void;
  close(): Promise<void>;
}

/** Starts a proxy to `targetHost:targetPort` that delays every chunk by `delayMs` (an injected latency). */
export async function startTcpProxy(targetPort: number, options: { targetHost?: string; delayMs?: number } = {}): Promise<TcpProxy> {
  const targetHost = options.targetHost ?? '127.0.0.1';
  let delayMs = options.delayMs ?? 0;
  let refusing = false;
  let cut = false;
  let accepted = 0;
  const pairs = new Set<[Socket, Socket]>();
  /** Connections accepted during a cut, connected onward when it ends. */
  const held: Socket[] = [];

  /** Forwards `from` to `to`, each chunk released no earlier than the previous one. */
  const pipe = (from: Socket, to: Socket): void => {
    let releaseAt = 0;
    from.on('data', (chunk: Buffer) => {
      if (delayMs <= 0 && releaseAt <= Date.now()) {
        to.write(chunk);
        return;
      }
      releaseAt = Math.max(releaseAt, Date.now() + delayMs);
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, releaseAt - Date.now());
    });
  };

  const forward = (client: Socket): void => {
    if (client.destroyed) return;
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.setNoDelay(true);
      socket.on('error', end);
      socket.on('close', end);
    }
    pipe(client, upstream);
    pipe(upstream, client);
    client.resume();
  };

  const server: Server = createServer((client) => {
    accepted++;
    if (refusing) {
      client.destroy();
      return;
    }
    if (cut) {
      client.pause();
      client.on('error', () => client.destroy());
      held.push(client);
      return;
    }
    forward(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('tcpProxy: no port');
  const dropAll = (): void => {
    for (const [a, b] of [...pairs]) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    port: address.port,
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    setLatency(ms) {
      delayMs = ms;
    },
    dropAll,
    setRefusing(value) {
      refusing = value;
    },
    setCut(value) {
      cut = value;
      // A paused socket reads nothing: the peer's data waits in the kernel's buffers.
      for (const pair of pairs) for (const socket of pair) value ? socket.pause() : socket.resume();
      if (!value) for (const client of held.splice(0)) forward(client);
    },
    close() {
      for (const client of held.splice(0)) client.destroy();
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
