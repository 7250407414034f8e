import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderDashboard } from './dashboardHtml.js';
import type { EventStream } from './EventStream.js';
import type { HttpHandler, ProbeResult } from '@roster/http';

/** What the status page shows of a node (`/status.json` is exactly this). */
export interface NodeStatus {
  readonly id: string;
  readonly group: string;
  readonly env: string;
  /** The store URL, passwords redacted. */
  readonly store: string;
  /** `"connecting"` until the store is reached, then the node's state (`"running"`, …). */
  readonly state: string;
  readonly role: string | undefined;
  readonly leader: { readonly id: string; readonly era: number; readonly nonce: number; readonly token: string } | null;
  /**
   * The member list, with each member's PONG round trip (`pongRoundTripMs`) in ms where this node
   * knows it (else `null`): from writing a PING to finding the leader's PONG in its place, as the
   * member measured it. A PING is written every interval and answered in between, so this is about
   * I when every PING is answered and a multiple of I when some are not: a cadence, not a network
   * latency.
   */
  readonly members: {
    readonly version: number;
    readonly list: readonly { readonly id: string; readonly weight: number; readonly pongRoundTripMs: number | null }[];
  };
  /**
   * Latencies in ms, `null` until measured: `storeRoundTripMs`, a moving average of this node's
   * store operations from call to answer (the latency to act on); `windowReadMs`, of its
   * leader-window reads; `pongRoundTripMs`, of its own PONG round trip (see `members`).
   */
  readonly latency: { readonly storeRoundTripMs: number | null; readonly windowReadMs: number | null; readonly pongRoundTripMs: number | null };
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** What `/healthz` and `/readyz` answer now. */
  readonly probes: { readonly healthz: ProbeResult; readonly readyz: ProbeResult };
  /** What the node's store operations say of the store. */
  readonly storeHealth: {
    /** An operation succeeded within the last T. */
    readonly reachable: boolean;
    /** How long ago the last operation succeeded, or `null` when none has. */
    readonly lastSuccessAgoMs: number | null;
    /** The last failure: its kind (as `roster_store_errors_total` labels it) and message. */
    readonly lastError: { readonly kind: string; readonly message: string } | null;
    /** Operations waiting for the store now. */
    readonly inFlight: number;
  };
  /** Counters of what the node did. */
  readonly stats: Readonly<Record<string, number>>;
  /** The most recent log and event lines, oldest first. */
  readonly recent: readonly string[];
}

/** The last `capacity` lines written to it. */
export class RecentLines {
  readonly #lines: string[] = [];
  constructor(private readonly capacity = 50) {}
  push(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > this.capacity) this.#lines.shift();
  }
  get lines(): readonly string[] {
    return [...this.#lines];
  }
}

/** The endpoints of a {@link StatusPage} beyond the page and `/status.json`; each is optional. */
export interface StatusEndpoints {
  /** `/events`: the node's events as NDJSON, or Server-Sent Events for a browser. */
  readonly events?: EventStream;
  /** `/metrics`: Prometheus text (`@roster/http`'s `createMetricsHandler`). */
  readonly metrics?: HttpHandler;
  /** `/healthz` (liveness) and `/readyz` (readiness): `@roster/http`'s `createProbeHandler`. */
  readonly probes?: { readonly healthz: HttpHandler; readonly readyz: HttpHandler };
}

/** Most sockets the status page keeps open at once; the next ones are closed at once. */
const MAX_CONNECTIONS = 256;

/**
 * A read-only HTTP status page for one node (the logs, looked at from a browser), on
 * `node:http` alone: `/` is a live dashboard (it follows `/events` as Server-Sent Events),
 * `/status.json` the same as JSON, and, when given, `/events` (the node's events as NDJSON),
 * `/metrics` (Prometheus text), `/healthz` and `/readyz` (200 or 503 with a JSON reason). Anything
 * else is 404; anything but GET and HEAD is 405. At most 256 connections are open at once.
 */
export class StatusPage {
  readonly #server: Server;
  readonly url: string;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  /**
   * Listens on `host:port` (port 0: any free port); serves the `endpoints` given. Rejects with
   * the listen error (e.g. `EADDRINUSE`).
   */
  static async listen(host: string, port: number, status: () => NodeStatus, endpoints: StatusEndpoints = {}): Promise<StatusPage> {
    const server = createServer((request, response) => respond(request, response, status, endpoints));
    // Bounded: at most this many sockets at once (the event streams have their own, lower cap).
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return new StatusPage(server, `http://${shownHost}:${address.port}/`);
  }

  /** Stops listening and closes every connection. Idempotent. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

function respond(request: IncomingMessage, response: ServerResponse, status: () => NodeStatus, endpoints: StatusEndpoints): void {
  const path = new URL(request.url ?? '/', 'http://status').pathname;
  const { events, metrics, probes } = endpoints;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, request, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
  } else if (path === '/status.json') {
    send(response, request, 200, 'application/json; charset=utf-8', `${JSON.stringify(status(), null, 2)}\n`);
  } else if (path === '/events' && events) {
    events.attach(request, response);
  } else if (path === '/metrics' && metrics) {
    void metrics(request, response);
  } else if ((path === '/healthz' || path === '/readyz') && probes) {
    void (path === '/healthz' ? probes.healthz : probes.readyz)(request, response);
  } else if (path === '/') {
    send(response, request, 200, 'text/html; charset=utf-8', renderDashboard(status()));
  } else {
    const known = ['/', '/status.json', ...(events ? ['/events'] : []), ...(metrics ? ['/metrics'] : []), ...(probes ? ['/healthz', '/readyz'] : [])];
    send(response, request, 404, 'text/plain; charset=utf-8', `not found: try ${known.join(', ')}\n`);
  }
}

function send(response: ServerResponse, request: IncomingMessage, code: number, type: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(request.method === 'HEAD' ? undefined : body);
}
