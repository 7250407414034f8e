/**
 * One node's link to the world, as the nemesis controls it: a local TCP gateway that every
 * outgoing connection of the node's process is routed through (see `netRoute.ts`), to the store
 * and to the fenced register alike. The node's process sends one header line naming where the
 * connection was going; the gateway connects there and forwards the bytes, unless the link is
 * faulty:
 *
 * | mode | what the node sees |
 * |---|---|
 * | `open` | a working network (with the added latency, if any) |
 * | `silent` | a black hole: nothing gets through either way, nothing is refused; what was sent is held, as TCP retransmits it, and arrives once the link is open again |
 * | `reset` | every connection reset at once, and every new one reset as it is made |
 * | `drop-replies` | what the node sends arrives; every reply is lost, and the connections that lost one are reset when the link opens again (their byte stream is broken) |
 *
 * A flapping link ({@link FaultProxy.flap}) goes silent and open again every `periodMs / 2`.
 *
 * The link counts the connections its faults reached, by destination ({@link FaultProxy.cuts}): a
 * cut that reached none of the connections to the store proved nothing (the store was reached
 * another way, e.g. over TLS, or the node's connections were not routed at all).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** The state of a node's link (see the table of {@link FaultProxy}). */
export type LinkMode = 'open' | 'silent' | 'reset' | 'drop-replies';

/** The header the node's process writes first on each routed connection: `ROSTER-VERIFY host:port\n`. */
export const ROUTE_HEADER = 'ROSTER-VERIFY';

type Direction = 'up' | 'down';

/** One routed connection: the node's side and the destination's side. */
class Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Where the node was connecting (`host:port`), once its header is read. */
  destination: string | undefined;
  /** Bytes held while the link is silent (or the destination is not connected yet), per direction. */
  readonly held: Record<Direction, Buffer[]> = { up: [], down: [] };
  /** When the last chunk of each direction may be released (latency keeps order). */
  readonly releaseAt: Record<Direction, number> = { up: 0, down: 0 };
  /** True once a reply was dropped: the stream is broken, and is reset when the link opens. */
  lost = false;

  constructor(client: Socket) {
    this.client = client;
  }
}

/**
 * A controllable gateway for one node (see the module's documentation).
 *
 * @example
 * ```ts
 * const link = await FaultProxy.listen();
 * // start the node with ROSTER_VERIFY_GATEWAY=link.port and the netRoute hook
 * link.setMode('silent');   // the node is cut off, silently
 * link.setMode('open');     // and reaches the store again
 * await link.close();
 * ```
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #mode: LinkMode = 'open';
  #delayMs = 0;
  #flapTimer: NodeJS.Timeout | undefined;
  #accepted = 0;
  readonly #cuts = new Map<string, number>();
  #closed = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a gateway on a free port of 127.0.0.1. */
  static async listen(): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((socket) => proxy!.#accept(socket));
    proxy = new FaultProxy(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The port the node's process connects to. */
  get port(): number {
    const address = this.#server.address();
    return address !== null && typeof address === 'object' ? address.port : 0;
  }

  /** Connections the node made through this link so far. */
  get accepted(): number {
    return this.#accepted;
  }

  /** Connections open now. */
  get open(): number {
    return this.#pairs.size;
  }

  /**
   * How many times a fault of this link (any mode but `open`) reached a connection, by the
   * connection's destination (`host:port`, as the node's process named it): each connection open
   * when the link leaves `open` (each silent phase of a flap too), and each one whose destination
   * is read while the link is not open. A connection reset before it named its destination is not
   * counted. Latency is no cut and is not counted.
   */
  get cuts(): ReadonlyMap<string, number> {
    return this.#cuts;
  }

  /** The link's mode now. */
  get mode(): LinkMode {
    return this.#mode;
  }

  /** Sets the link's mode (and stops any flapping). */
  setMode(mode: LinkMode): void {
    this.#stopFlapping();
    this.#apply(mode);
  }

  /** Delays every chunk, both ways, by `ms` from now on (order is kept); 0 removes the delay. */
  setLatency(ms: number): void {
    this.#delayMs = Math.max(0, ms);
  }

  /** Makes the link go silent and open again, each for `periodMs / 2`, until {@link setMode}. */
  flap(periodMs: number): void {
    this.#stopFlapping();
    const half = Math.max(1, Math.round(periodMs / 2));
    const toggle = (): void => {
      this.#apply(this.#mode === 'open' ? 'silent' : 'open');
      this.#flapTimer = setTimeout(toggle, half);
    };
    toggle();
  }

  /** Opens the link (no fault, no latency). */
  heal(): void {
    this.setLatency(0);
    this.setMode('open');
  }

  /** Resets every connection and stops listening. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopFlapping();
    for (const pair of [...this.#pairs]) this.#end(pair, true);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #stopFlapping(): void {
    if (this.#flapTimer !== undefined) clearTimeout(this.#flapTimer);
    this.#flapTimer = undefined;
  }

  #apply(mode: LinkMode): void {
    const before = this.#mode;
    this.#mode = mode;
    if (before === 'open' && mode !== 'open') for (const pair of this.#pairs) this.#countCut(pair);
    if (mode === 'reset') {
      for (const pair of [...this.#pairs]) this.#end(pair, true);
      return;
    }
    if (mode !== 'open') return;
    // The link is back: broken streams are reset, held bytes flow in order.
    for (const pair of [...this.#pairs]) {
      if (pair.lost) {
        this.#end(pair, true);
        continue;
      }
      if (pair.upstream === undefined && before !== 'open') this.#connectUpstream(pair);
      this.#flush(pair, 'up');
      this.#flush(pair, 'down');
    }
  }

  #accept(client: Socket): void {
    this.#accepted++;
    if (this.#closed || this.#mode === 'reset') {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    const pair = new Pair(client);
    this.#pairs.add(pair);
    client.setNoDelay(true);
    client.on('error', () => this.#end(pair, false));
    client.on('close', () => this.#end(pair, false));
    let header = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (pair.destination === undefined) {
        header = Buffer.concat([header, chunk]);
        const newline = header.indexOf(0x0a);
        if (newline < 0) {
          if (header.length > 512) this.#end(pair, true);
          return;
        }
        const line = header.subarray(0, newline).toString('latin1');
        const match = new RegExp(`^${ROUTE_HEADER} (.+):(\\d+)$`).exec(line);
        if (!match) {
          this.#end(pair, true);
          return;
        }
        pair.destination = `${match[1]!}:${match[2]!}`;
        if (this.#mode !== 'open') this.#countCut(pair);
        const rest = header.subarray(newline + 1);
        if (rest.length > 0) pair.held.up.push(rest);
        if (this.#mode === 'open' || this.#mode === 'drop-replies') this.#connectUpstream(pair);
        return;
      }
      this.#send(pair, 'up', chunk);
    });
  }

  #connectUpstream(pair: Pair): void {
    const destination = pair.destination;
    if (destination === undefined || pair.upstream !== undefined) return;
    const colon = destination.lastIndexOf(':');
    const upstream = connect(Number(destination.slice(colon + 1)), destination.slice(0, colon));
    pair.upstream = upstream;
    upstream.setNoDelay(true);
    upstream.on('error', () => this.#end(pair, true));
    upstream.on('close', () => this.#end(pair, false));
    upstream.on('data', (chunk: Buffer) => this.#send(pair, 'down', chunk));
    upstream.on('connect', () => this.#flush(pair, 'up'));
  }

  #countCut(pair: Pair): void {
    if (pair.destination !== undefined) this.#cuts.set(pair.destination, (this.#cuts.get(pair.destination) ?? 0) + 1);
  }

  /** Passes `chunk` on in `direction`, holds it, or drops it, as the mode says. */
  #send(pair: Pair, direction: Direction, chunk: Buffer): void {
    if (this.#mode === 'drop-replies' && direction === 'down') {
      pair.lost = true;
      return;
    }
    const upstreamReady = pair.upstream !== undefined && !pair.upstream.connecting;
    if (this.#mode === 'silent' || (direction === 'up' && !upstreamReady) || pair.held[direction].length > 0) {
      pair.held[direction].push(chunk);
      if (this.#mode !== 'silent') this.#flush(pair, direction);
      return;
    }
    this.#deliver(pair, direction, chunk);
  }

  #flush(pair: Pair, direction: Direction): void {
    if (this.#mode === 'silent') return;
    if (direction === 'up' && (pair.upstream === undefined || pair.upstream.connecting)) return;
    const chunks = pair.held[direction].splice(0);
    for (const chunk of chunks) this.#deliver(pair, direction, chunk);
  }

  #deliver(pair: Pair, direction: Direction, chunk: Buffer): void {
    const to = direction === 'up' ? pair.upstream : pair.client;
    if (to === undefined) return;
    const now = Date.now();
    if (this.#delayMs <= 0 && pair.releaseAt[direction] <= now) {
      if (!to.destroyed) to.write(chunk);
      return;
    }
    pair.releaseAt[direction] = Math.max(pair.releaseAt[direction], now + this.#delayMs);
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, pair.releaseAt[direction] - now);
  }

  /** Ends a pair: `reset` sends the node a TCP reset (as a broken network does) rather than a close. */
  #end(pair: Pair, reset: boolean): void {
    if (!this.#pairs.delete(pair)) return;
    if (reset && !pair.client.destroyed) pair.client.resetAndDestroy();
    else pair.client.destroy();
    pair.upstream?.destroy();
  }
}
