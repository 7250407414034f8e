import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatJsonEvent, type LeaderEvent, type MembersEvent, type NodeEvent, type RoleEvent } from './nodeEvents.js';

/** A client whose unsent lines exceed this many bytes is too slow and is dropped. */
const MAX_BACKLOG_BYTES = 1 << 20;

/** Most clients connected at once, by default; one more gets 503. */
export const DEFAULT_MAX_EVENT_CLIENTS = 100;

/** How a client reads the stream: NDJSON lines, or Server-Sent Events for a browser. */
type Format = 'ndjson' | 'sse';

/**
 * `GET /events` of the status page (the local daemon's side of `@roster/client`): the node's events as NDJSON,
 * exactly the objects `roster node --json` prints, to any number of clients at once.
 *
 * Each client first gets a snapshot of the current state, three lines: `role` (with
 * `previous: null` and `reason: "snapshot"`), `leader` (all `null` when none is known) and
 * `members` (with `added` = every member and `removed` = `[]`), then every event as it happens.
 * Clients that connect before the node has started wait for {@link open}, so that a snapshot is
 * never of a node that has not read the store yet. The `stopped` event ends every stream; a
 * client that goes away, or falls more than 1 MiB behind, is dropped. At most `maxClients`
 * (default {@link DEFAULT_MAX_EVENT_CLIENTS}) are connected at once: one more gets `503` with a
 * `retry-after`, so memory stays bounded (at most `maxClients` × 1 MiB of unsent text).
 *
 * A client that asks for `Accept: text/event-stream` (as a browser's `EventSource` does) gets the
 * same objects as Server-Sent Events instead: each as `event: node` with the JSON line as `data`,
 * and, for the live status page, `event: status` with the whole `/status.json` object, at once and
 * at every {@link publishStatus}. The NDJSON stream is unchanged by it.
 */
export class EventStream {
  readonly #id: string;
  readonly #clients = new Map<ServerResponse, Format>();
  readonly #status: (() => object) | undefined;
  readonly #maxClients: number;
  #role: RoleEvent | undefined;
  #leader: LeaderEvent | undefined;
  #members: MembersEvent | undefined;
  #open = false;
  #ended = false;

  /**
   * @param id - the node's id, for the snapshot lines of a node that has printed none yet.
   * @param status - the status object that Server-Sent Events clients get on connecting.
   * @param options.maxClients - most clients connected at once (NDJSON and SSE together).
   */
  constructor(id: string, status?: () => object, options: { maxClients?: number } = {}) {
    this.#id = id;
    this.#status = status;
    this.#maxClients = options.maxClients ?? DEFAULT_MAX_EVENT_CLIENTS;
  }

  /** How many clients are connected now. */
  get clients(): number {
    return this.#clients.size;
  }

  /** How many Server-Sent Events clients are connected now. */
  get sseClients(): number {
    let n = 0;
    for (const format of this.#clients.values()) if (format === 'sse') n++;
    return n;
  }

  /** Sends `status` to every Server-Sent Events client as an `event: status` (once {@link open}). */
  publishStatus(status: object): void {
    if (!this.#open || this.#ended) return;
    const text = sse('status', JSON.stringify(status));
    for (const [client, format] of this.#clients) if (format === 'sse') write(client, text);
  }

  /** Sends `event` to every client (once {@link open}) and remembers it for later snapshots. */
  publish(event: NodeEvent): void {
    if (this.#ended) return;
    if (event.event === 'role') this.#role = event;
    else if (event.event === 'leader') this.#leader = event;
    else if (event.event === 'members') this.#members = event;
    if (this.#open) {
      const json = formatJsonEvent(event);
      for (const [client, format] of this.#clients) write(client, format === 'sse' ? sse('node', json) : `${json}\n`);
    }
    if (event.event === 'stopped') this.end();
  }

  /** The node has started: sends the snapshot to the clients waiting for it, then goes live. */
  open(): void {
    if (this.#open || this.#ended) return;
    this.#open = true;
    for (const [client, format] of this.#clients) write(client, this.#snapshot(format));
  }

  /** Ends every stream (after `stopped`, or when the node could not start) and refuses new clients. Idempotent. */
  end(): void {
    this.#ended = true;
    for (const client of this.#clients.keys()) client.end();
    this.#clients.clear();
  }

  /** Serves one `GET /events` (or `HEAD`) request: headers at once, then the snapshot and the events. */
  attach(request: IncomingMessage, response: ServerResponse): void {
    if (this.#ended) {
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      response.end('the node has stopped\n');
      return;
    }
    if (this.#clients.size >= this.#maxClients) {
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '5' });
      response.end(`too many event-stream clients (at most ${this.#maxClients})\n`);
      return;
    }
    const format: Format = /\btext\/event-stream\b/.test(request.headers.accept ?? '') ? 'sse' : 'ndjson';
    const type = format === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    this.#clients.set(response, format);
    response.once('close', () => this.#clients.delete(response));
    response.on('error', () => this.#clients.delete(response)); // a write racing a client that left
    if (this.#open) write(response, this.#snapshot(format));
  }

  /**
   * The current state as three lines, as a client that had seen every event would know it; for
   * Server-Sent Events, the status first, then the three as `node` events.
   */
  #snapshot(format: Format): string {
    const ts = Date.now();
    const id = this.#id;
    const lines: NodeEvent[] = [];
    if (this.#role) lines.push({ ...this.#role, previous: null, reason: 'snapshot' });
    lines.push(this.#leader ?? { ts, id, event: 'leader', leader: null, era: null, nonce: null, token: null });
    const members = this.#members ?? { ts, id, event: 'members', version: 0, members: [], added: [], removed: [] };
    lines.push({ ...members, added: [...members.members], removed: [] });
    if (format === 'ndjson') return lines.map((line) => `${formatJsonEvent(line)}\n`).join('');
    const status = this.#status ? sse('status', JSON.stringify(this.#status())) : '';
    return status + lines.map((line) => sse('node', formatJsonEvent(line))).join('');
  }
}

/** One Server-Sent Event; `data` is one line of JSON. */
function sse(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

function write(client: ServerResponse, text: string): void {
  client.write(text);
  if (client.writableLength > MAX_BACKLOG_BYTES) client.destroy();
}
