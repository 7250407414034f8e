/**
 * The resource the run keeps to show the fencing pattern at work: a register that remembers the
 * highest fencing token it has seen and refuses any write stamped with a lower one. Each node
 * writes to it while it leads (`POST /write` with `{"node": ID, "token": "DECIMAL"}`), through the
 * same faulty link as its store traffic, so a deposed leader's write delayed by a cut arrives late
 * and must be refused. Every write and its answer is recorded as a {@link FencedWrite}.
 *
 * Answers: `200 {"accepted":true}`, `409 {"accepted":false,"highest":"…"}` (a stale token), `400`
 * for a request that is not a write.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FencedWrite } from '../history/History.js';

/** Options of {@link FencedRegister.listen}. */
export interface FencedRegisterOptions {
  /** The time of a write, in ms on the run's time axis. */
  readonly now: () => number;
}

/** The largest body a write may have, in bytes. */
const MAX_BODY = 1024;

/** See the module's documentation. */
export class FencedRegister {
  readonly #server: Server;
  readonly #now: () => number;
  readonly #writes: FencedWrite[] = [];
  #highest = 0n;

  private constructor(server: Server, now: () => number) {
    this.#server = server;
    this.#now = now;
  }

  /** Starts the register on a free port of 127.0.0.1. */
  static async listen(options: FencedRegisterOptions): Promise<FencedRegister> {
    let register: FencedRegister | undefined;
    const server = createServer((request, response) => register!.#handle(request, response));
    server.keepAliveTimeout = 60_000;
    register = new FencedRegister(server, options.now);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return register;
  }

  /** The URL nodes write to: `http://127.0.0.1:PORT/write`. */
  get url(): string {
    const address = this.#server.address();
    const port = address !== null && typeof address === 'object' ? address.port : 0;
    return `http://127.0.0.1:${port}/write`;
  }

  /** Every write so far, in the order received. */
  get writes(): readonly FencedWrite[] {
    return this.#writes;
  }

  /** The highest token accepted so far (0 for none). */
  get highest(): bigint {
    return this.#highest;
  }

  /**
   * Applies one write: accepted when `token` is at least the highest seen (the same leadership
   * writes again with its token), refused when lower.
   */
  write(node: string, token: bigint): FencedWrite {
    const highestSeen = this.#highest;
    const accepted = token >= highestSeen;
    if (accepted) this.#highest = token;
    const write: FencedWrite = { node, at: this.#now(), token: String(token), accepted, highestSeen: String(highestSeen) };
    this.#writes.push(write);
    return write;
  }

  /** Stops listening and drops every connection. Idempotent. */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const answer = (status: number, body: object): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.method !== 'POST' || request.url !== '/write') {
      answer(404, { error: 'POST /write' });
      return;
    }
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) request.destroy();
    });
    request.on('end', () => {
      const parsed = parseWrite(body);
      if (parsed === undefined) {
        answer(400, { error: 'expected {"node": ID, "token": "DECIMAL"}' });
        return;
      }
      const write = this.write(parsed.node, parsed.token);
      if (write.accepted) answer(200, { accepted: true });
      else answer(409, { accepted: false, highest: String(this.#highest) });
    });
  }
}

function parseWrite(body: string): { node: string; token: bigint } | undefined {
  try {
    const value = JSON.parse(body) as { node?: unknown; token?: unknown };
    if (typeof value.node !== 'string' || typeof value.token !== 'string' || !/^\d{1,40}$/.test(value.token)) return undefined;
    return { node: value.node, token: BigInt(value.token) };
  } catch {
    return undefined;
  }
}
