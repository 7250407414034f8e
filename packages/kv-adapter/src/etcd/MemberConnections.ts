import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Clock, Timer } from '../clock/Clock.js';
import { ConnectBackOff } from '../backend/ConnectBackOff.js';
import { markQueued } from '../errors.js';
import { WaitLanes } from '../backend/WaitLanes.js';

/** Options of {@link MemberConnections}. */
export interface MemberConnectionsOptions {
  /** Node.js TLS options; `undefined` for plain HTTP. */
  readonly tls: ConnectionOptions | undefined;
  /** Sockets kept (and requests in flight) at most. */
  readonly maxSockets: number;
  readonly clock: Clock;
}

/**
 * The keep-alive connections to one etcd member, and when a new one may be opened.
 *
 * HTTP/1.1 cannot cancel a request without closing its connection, and etcd serves its JSON
 * gateway over HTTP/2 only with TLS (plain HTTP/2 on the client port goes to gRPC), so a request
 * that timed out is not cancelled: its connection stays busy until the late answer, then serves
 * the next request ({@link EtcdTransport} gives up on it only after a while). A request needs a
 * free connection or a new one, and while the member does not answer, new connections are spaced
 * out by a {@link ConnectBackOff} (at once, then 100 ms doubling to 500 ms): a cut network or a
 * frozen member costs a few connections per second, not one per timed-out request. A kept
 * connection that the member closes while idle (a restart) counts as a failure at once, so that
 * the requests of the next turn do not each open a connection before one of them fails.
 *
 * **Overload.** At most `maxSockets` requests are in flight; a request that finds every
 * connection busy waits here, not in the agent's queue, and the waiting requests are served newest
 * first (an adaptive LIFO, as in Facebook's "Fail at Scale"): when the member answers slower than
 * requests come, the oldest waiters reach their deadlines unsent and cost the member nothing,
 * while the newest are sent with their whole deadline ahead of them. A first-come queue would send
 * each request with its deadline nearly spent, to time out on the wire after the member did its
 * work: every operation fails, and the member stays saturated by answers nobody waits for.
 */
export class MemberConnections {
  /** The pool of this member's connections. */
  readonly agent: HttpAgent;
  readonly #clock: Clock;
  readonly #maxSockets: number;
  readonly #backOff: ConnectBackOff;
  /** The requests waiting for a connection: a freed one goes to the newest (urgent ones first). */
  readonly #waiters = new WaitLanes<() => void>();
  #lastFailure: unknown;
  #destroyed = false;

  constructor(options: MemberConnectionsOptions) {
    this.#clock = options.clock;
    this.#maxSockets = options.maxSockets;
    this.#backOff = new ConnectBackOff({ clock: options.clock });
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, scheduling: 'lifo' as const };
    this.agent = options.tls ? new HttpsAgent({ ...agentOptions, ...options.tls }) : new HttpAgent(agentOptions);
    // The agent's own listener (added first) has put the socket back in its free list by now.
    this.agent.on('free', () => this.#wakeNewest());
    const create = this.agent.createConnection.bind(this.agent) as (...args: unknown[]) => Duplex | undefined;
    (this.agent as { createConnection: unknown }).createConnection = (...args: unknown[]): Duplex | undefined => {
      const socket = create(...args);
      if (socket) this.#watch(socket);
      return socket;
    };
  }

  /**
   * Whether a request may be sent now: a kept connection is free, or fewer than `maxSockets` are
   * open and a new one may be opened (then counted). False when every connection is busy: the
   * request {@link wait}s. Call it right before the request, in the same turn of the event loop.
   */
  tryAcquire(): boolean {
    if (count(this.agent.freeSockets) > 0) return true;
    return count(this.agent.sockets) < this.#maxSockets && this.#backOff.tryOpen();
  }

  /** How long until a new connection may be opened (a freed one may come sooner). */
  get waitMs(): number {
    return this.#backOff.waitMs;
  }

  /**
   * Resolves when a connection is freed for this waiter (the newest waiter gets it, an `urgent` one
   * before the others), after `ms`, or when `signal` aborts, whichever comes first.
   */
  wait(ms: number, signal: AbortSignal | undefined, urgent = false): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: Timer | undefined;
      const done = (): void => {
        timer?.cancel();
        this.#waiters.remove(done);
        signal?.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = (): void => {
        // The caller's deadline passed with the request still here: it is never sent.
        markQueued(signal!.reason);
        done();
      };
      this.#waiters.add(done, urgent);
      signal?.addEventListener('abort', aborted, { once: true });
      timer = this.#clock.setTimer(done, ms);
    });
  }

  /** The member answered in time. */
  answered(): void {
    this.#backOff.succeeded();
  }

  /** The member did not answer in time, or a connection to it failed. */
  failed(error: unknown): void {
    this.#lastFailure = error;
    this.#backOff.failed();
  }

  /** What the last {@link failed} reported. */
  get lastFailure(): unknown {
    return this.#lastFailure;
  }

  /** Closes every connection; waiters resume. */
  destroy(): void {
    this.#destroyed = true;
    this.agent.destroy();
    for (const waiter of this.#waiters.all()) waiter();
  }

  /**
   * Reports a failure when `socket` closes while idle in the pool (the member closed it). This
   * listener runs before the agent's own, which then removes the socket from its free list.
   */
  #watch(socket: Duplex): void {
    socket.once('close', () => {
      if (this.#destroyed) return;
      const idle = Object.values(this.agent.freeSockets).some((list) => list?.includes(socket as Socket));
      if (idle) this.failed(new Error('the member closed a kept connection'));
      // Room for a new connection (the agent forgets this socket right after this listener).
      else queueMicrotask(() => this.#wakeNewest());
    });
  }

  /** Hands a freed connection to the newest waiter, which takes it in its next turn. */
  #wakeNewest(): void {
    this.#waiters.next()?.();
  }
}

/** Live sockets in an agent's `sockets` or `freeSockets`. */
function count(lists: NodeJS.ReadOnlyDict<Socket[]>): number {
  let n = 0;
  for (const list of Object.values(lists)) for (const socket of list ?? []) if (!socket.destroyed) n++;
  return n;
}
