import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatJsonEvent, type LeaderEvent, type MembersEvent, type NodeEvent, type RoleEvent } from './nodeEvents.js';

/** A client whose unsent lines exceed this many bytes is too slow and is dropped. */
const MAX_BACKLOG_BYTES = 1 << 20;

/**
 * `GET /events` of the status page (seed 000's "local daemon" side): the node's events as NDJSON,
 * exactly the objects `roster node --json` prints, to any number of clients at once.
 *
 * Each client first gets a snapshot of the current state, three lines: `role` (with
 * `previous: null` and `reason: "snapshot"`), `leader` (all `null` when none is known) and
 * `members` (with `added` = every member and `removed` = `[]`), then every event as it happens.
 * Clients that connect before the node has started wait for {@link open}, so that a snapshot is
 * never of a node that has not read the store yet. The `stopped` event ends every stream; a
 * client that goes away, or falls more than 1 MiB behind, is dropped.
 */
export class EventStream {
  readonly #id: string;
  readonly #clients = new Set<ServerResponse>();
  #role: RoleEvent | undefined;
  #leader: LeaderEvent | undefined;
  #members: MembersEvent | undefined;
  #open = false;
  #ended = false;

  /** @param id - the node's id, for the snapshot lines of a node that has printed none yet. */
  constructor(id: string) {
    this.#id = id;
  }

  /** How many clients are connected now. */
  get clients(): number {
    return this.#clients.size;
  }

  /** Sends `event` to every client (once {@link open}) and remembers it for later snapshots. */
  publish(event: NodeEvent): void {
    if (this.#ended) return;
    if (event.event === 'role') this.#role = event;
    else if (event.event === 'leader') this.#leader = event;
    else if (event.event === 'members') this.#members = event;
    if (this.#open) {
      const line = `${formatJsonEvent(event)}\n`;
      for (const client of this.#clients) write(client, line);
    }
    if (event.event === 'stopped') this.end();
  }

  /** The node has started: sends the snapshot to the clients waiting for it, then goes live. */
  open(): void {
    if (this.#open || this.#ended) return;
    this.#open = true;
    for (const client of this.#clients) write(client, this.#snapshot());
  }

  /** Ends every stream (after `stopped`, or when the node could not start) and refuses new clients. Idempotent. */
  end(): void {
    this.#ended = true;
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  /** Serves one `GET /events` (or `HEAD`) request: headers at once, then the snapshot and the events. */
  attach(request: IncomingMessage, response: ServerResponse): void {
    if (this.#ended) {
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      response.end('the node has stopped\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    this.#clients.add(response);
    response.once('close', () => this.#clients.delete(response));
    response.on('error', () => this.#clients.delete(response)); // a write racing a client that left
    if (this.#open) write(response, this.#snapshot());
  }

  /** The current state as three lines, as a client that had seen every event would know it. */
  #snapshot(): string {
    const ts = Date.now();
    const id = this.#id;
    const lines: NodeEvent[] = [];
    if (this.#role) lines.push({ ...this.#role, previous: null, reason: 'snapshot' });
    lines.push(this.#leader ?? { ts, id, event: 'leader', leader: null, era: null, nonce: null, token: null });
    const members = this.#members ?? { ts, id, event: 'members', version: 0, members: [], added: [], removed: [] };
    lines.push({ ...members, added: [...members.members], removed: [] });
    return lines.map((line) => `${formatJsonEvent(line)}\n`).join('');
  }
}

function write(client: ServerResponse, text: string): void {
  client.write(text);
  if (client.writableLength > MAX_BACKLOG_BYTES) client.destroy();
}
