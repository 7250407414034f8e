import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventStream } from './EventStream.js';

/** What the status page shows of a node (`/status.json` is exactly this). */
export interface NodeStatus {
  readonly id: string;
  readonly cluster: string;
  readonly env: string;
  /** The store URL, passwords redacted. */
  readonly store: string;
  /** `"connecting"` until the store is reached, then the node's state (`"running"`, …). */
  readonly state: string;
  readonly role: string | undefined;
  readonly leader: { readonly id: string; readonly era: number; readonly nonce: number; readonly token: string } | null;
  readonly members: { readonly version: number; readonly list: readonly { readonly id: string; readonly weight: number }[] };
  /** The latency sensor: moving averages of a leader-window read and of a PING→PONG round trip. */
  readonly latency: { readonly windowReadMs: number | null; readonly pongRoundTripMs: number | null };
  readonly intervalMs: number;
  readonly timeoutMs: number;
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

/**
 * A read-only HTTP status page for one node (seed 001's "look at the logs from a browser"), on
 * `node:http` alone: `/` is a small HTML page that refreshes itself every two seconds,
 * `/status.json` the same as JSON, and, given an {@link EventStream}, `/events` the node's events as
 * NDJSON. Anything else is 404; anything but GET and HEAD is 405.
 */
export class StatusPage {
  readonly #server: Server;
  readonly url: string;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  /**
   * Listens on `host:port` (port 0: any free port); serves `/events` from `events` when given.
   * Rejects with the listen error (e.g. `EADDRINUSE`).
   */
  static async listen(host: string, port: number, status: () => NodeStatus, events?: EventStream): Promise<StatusPage> {
    const server = createServer((request, response) => respond(request, response, status, events));
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

function respond(request: IncomingMessage, response: ServerResponse, status: () => NodeStatus, events: EventStream | undefined): void {
  const path = new URL(request.url ?? '/', 'http://status').pathname;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, request, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
  } else if (path === '/status.json') {
    send(response, request, 200, 'application/json; charset=utf-8', `${JSON.stringify(status(), null, 2)}\n`);
  } else if (path === '/events' && events) {
    events.attach(request, response);
  } else if (path === '/') {
    send(response, request, 200, 'text/html; charset=utf-8', renderHtml(status()));
  } else {
    send(response, request, 404, 'text/plain; charset=utf-8', `not found: try /, /status.json${events ? ' or /events' : ''}\n`);
  }
}

function send(response: ServerResponse, request: IncomingMessage, code: number, type: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(request.method === 'HEAD' ? undefined : body);
}

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const ms = (value: number | null): string => (value === null ? '–' : `${value.toFixed(1)} ms`);

/** The status as a small self-refreshing HTML page. */
export function renderHtml(s: NodeStatus): string {
  const leader = s.leader ? `${escape(s.leader.id)}${s.leader.id === s.id ? ' (this node)' : ''}, era ${s.leader.era}, token ${s.leader.token}` : 'none known';
  const members = s.members.list.map((m) => `<li>${escape(m.id)}${m.id === s.id ? ' (this node)' : ''}${m.weight === 1 ? '' : ` ×${m.weight}`}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>roster node ${escape(s.id)}: ${escape(s.role ?? s.state)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:60em}th{text-align:left;padding-right:1em}pre{background:#f4f4f4;padding:1em;overflow:auto}</style>
</head><body>
<h1>roster node ${escape(s.id)}</h1>
<table>
<tr><th>cluster</th><td>${escape(s.cluster)}/${escape(s.env)} on ${escape(s.store)}</td></tr>
<tr><th>state</th><td>${escape(s.state)}</td></tr>
<tr><th>role</th><td><b>${escape(s.role ?? '–')}</b></td></tr>
<tr><th>leader</th><td>${leader}</td></tr>
<tr><th>timing</th><td>interval ${s.intervalMs} ms, timeout ${s.timeoutMs} ms</td></tr>
<tr><th>latency</th><td>leader-window read ${ms(s.latency.windowReadMs)}, PING→PONG ${ms(s.latency.pongRoundTripMs)}</td></tr>
</table>
<h2>members (version ${s.members.version})</h2>
<ul>${members || '<li>none known</li>'}</ul>
<h2>recent</h2>
<pre>${escape(s.recent.join('\n'))}</pre>
<p><a href="/status.json">status.json</a></p>
</body></html>
`;
}
