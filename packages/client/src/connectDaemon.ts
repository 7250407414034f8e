import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { DaemonClient } from './DaemonClient.js';
import type { DaemonLeader, DaemonRole, DaemonUpdate, WatchFunction } from './DaemonUpdate.js';
import { realClock, type Clock } from './Clock.js';
import { ConfigError } from './ConfigError.js';
import { silentLogger, type Logger } from './Logger.js';
import { DaemonView } from './internal/DaemonView.js';
import { LineSplitter } from './internal/LineSplitter.js';
import { parseEvent } from './internal/parseEvent.js';
import { Updates } from './internal/Updates.js';

/** Options of {@link connectDaemon}. */
export interface ConnectDaemonOptions {
  /** Closes the client when it aborts. */
  readonly signal?: AbortSignal;
  /**
   * Reconnect when the link drops or cannot be made (the daemon restarted, or is not up yet);
   * without it, the client closes when the link ends.
   * @defaultValue true
   */
  readonly reconnect?: boolean;
  /**
   * How long to wait before each reconnection attempt, in milliseconds: a positive integer.
   * @defaultValue 1000
   */
  readonly retryMs?: number;
  /** Where skipped lines and link changes are reported. @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock the reconnection delay runs on. @defaultValue the real clock */
  readonly clock?: Clock;
}

/**
 * Connects to the event stream of a local `roster node --status-port PORT` and returns a
 * {@link DaemonClient} at once; the link is made in the background. Install watch functions right
 * away: the first updates (`connected`, then the daemon's state as `role`, `leader`, `add`…) come
 * no sooner than the next turn of the event loop.
 *
 * The state updates are differences from what the client knew: when the daemon restarts, the
 * client reconnects every `retryMs`, re-syncs from the snapshot the daemon sends first, and emits
 * only what changed meanwhile. A `goodbye` precedes every `leader` update that replaces or drops
 * the leader followed until then.
 *
 * Lines that are not events of the contract (docs/cli.md) are skipped and reported to the
 * logger; event types it does not know are ignored. Nothing is thrown after the call returns.
 *
 * @param url - the daemon's status page (`http://127.0.0.1:8080/`, as `roster node` logs it) or
 *   its `/events` URL. Only `http:`.
 * @throws {@link ConfigError} for a URL that is not `http:` or a `retryMs` that is not a positive
 *   integer.
 *
 * @example
 * ```ts
 * const client = connectDaemon('http://127.0.0.1:8080/');
 * client.watch((update) => {
 *   if (update.type === 'add') console.log(`${update.id} joined`);
 *   if (update.type === 'delete') console.log(`${update.id} left`);
 *   if (update.type === 'goodbye') console.log(`leader ${update.leader.id} is gone`);
 * });
 * // later
 * await client.close();
 * ```
 */
export function connectDaemon(url: string | URL, options: ConnectDaemonOptions = {}): DaemonClient {
  const retryMs = options.retryMs ?? 1000;
  if (!Number.isSafeInteger(retryMs) || retryMs < 1) throw new ConfigError('retryMs', retryMs, 'Expected `retryMs` to be a positive integer of milliseconds');
  return new DaemonLink(eventsUrl(url), options.reconnect ?? true, retryMs, options.logger ?? silentLogger, options.clock ?? realClock, options.signal);
}

/** The `/events` URL for `url`: as given, or with `/events` when it is the root of the status page. */
function eventsUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('url', url, 'Expected `url` to be the daemon’s status page, e.g. http://127.0.0.1:8080/');
  }
  if (parsed.protocol !== 'http:') throw new ConfigError('url', url, 'Expected `url` to be an http: URL, e.g. http://127.0.0.1:8080/');
  if (parsed.pathname === '/') parsed.pathname = '/events';
  return parsed;
}

/** One attempt at a connection: its request, and how to end it once. */
interface Attempt {
  readonly request: ClientRequest;
  /** Resolves when the request's connection is closed. */
  readonly gone: Promise<void>;
  end(reason: string): void;
}

class DaemonLink implements DaemonClient {
  readonly url: string;
  readonly #target: URL;
  readonly #reconnect: boolean;
  readonly #retryMs: number;
  readonly #logger: Logger;
  readonly #signal: AbortSignal | undefined;
  readonly #view = new DaemonView();
  readonly #updates: Updates<DaemonUpdate>;
  #attempt: Attempt | undefined;
  #retry: { cancel(): void } | undefined;
  readonly #clock: Clock;
  #connected = false;
  /** Failures since the link was last up: the first is a warning, the next ones debug. */
  #failures = 0;
  #closing: Promise<void> | undefined;

  constructor(target: URL, reconnect: boolean, retryMs: number, logger: Logger, clock: Clock, signal: AbortSignal | undefined) {
    this.#clock = clock;
    this.#target = target;
    this.url = target.href;
    this.#reconnect = reconnect;
    this.#retryMs = retryMs;
    this.#logger = logger;
    this.#signal = signal;
    this.#updates = new Updates(logger);
    if (signal?.aborted) {
      void this.close();
      return;
    }
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#connect();
  }

  get connected(): boolean {
    return this.#connected;
  }

  get role(): DaemonRole | undefined {
    return this.#view.role;
  }

  get leader(): DaemonLeader | undefined {
    return this.#view.leader;
  }

  get members(): readonly string[] {
    return this.#view.members;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  watch(fn: WatchFunction): () => void {
    return this.#updates.watch(fn);
  }

  updates(options: { readonly signal?: AbortSignal } = {}): AsyncIterableIterator<DaemonUpdate> {
    return this.#updates.iterate(options.signal);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  readonly #onAbort = (): void => void this.close();

  async #shutDown(): Promise<void> {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#retry?.cancel();
    this.#retry = undefined;
    const attempt = this.#attempt;
    attempt?.end('closed');
    this.#updates.close();
    await attempt?.gone;
  }

  #connect(): void {
    const request = httpRequest(this.#target, { headers: { accept: 'application/x-ndjson' } });
    const gone = new Promise<void>((resolve) => request.once('close', resolve));
    let over = false;
    let stopped = false;
    const lines = new LineSplitter(
      (line) => {
        if (this.#take(line)) stopped = true;
      },
      (length) => this.#logger.warn({ url: this.url, length }, 'skipped a line too long to be an event of the daemon'),
    );
    const attempt: Attempt = {
      request,
      gone,
      end: (reason) => {
        if (over) return;
        over = true;
        request.destroy();
        lines.reset();
        this.#lost(attempt, stopped ? 'the daemon stopped' : reason);
      },
    };
    this.#attempt = attempt;
    request.on('error', (error) => attempt.end(error.message));
    request.on('response', (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        response.resume();
        attempt.end(`HTTP ${response.statusCode} from the daemon`);
        return;
      }
      this.#up();
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (!over) lines.push(chunk);
      });
      response.on('error', (error) => attempt.end(error.message));
      response.on('close', () => attempt.end('the daemon closed the stream'));
    });
    request.end();
  }

  /** Takes one line in; true when it is `stopped`. */
  #take(line: string): boolean {
    const parsed = parseEvent(line);
    if (parsed.kind === 'invalid') {
      this.#logger.warn({ url: this.url, reason: parsed.reason, line: line.length > 200 ? `${line.slice(0, 200)}…` : line }, 'skipped a line that is not an event of the daemon');
      return false;
    }
    if (parsed.kind === 'unknown') {
      this.#logger.debug({ url: this.url, event: parsed.type }, 'ignored an event type this client does not know');
      return false;
    }
    for (const update of this.#view.apply(parsed.event)) this.#updates.emit(update);
    return parsed.event.event === 'stopped';
  }

  #up(): void {
    this.#connected = true;
    this.#failures = 0;
    this.#logger.info({ url: this.url }, 'connected to the daemon');
    this.#updates.emit({ type: 'connected' });
  }

  #lost(attempt: Attempt, reason: string): void {
    if (this.#attempt !== attempt) return;
    this.#attempt = undefined;
    const closing = this.#closing !== undefined;
    if (this.#connected) {
      this.#connected = false;
      // Whatever the node was, nothing says it still is: `role` is unknown until the link is back.
      this.#view.forgetRole();
      this.#logger.info({ url: this.url, reason }, 'disconnected from the daemon');
      this.#updates.emit({ type: 'disconnected', reason });
    } else if (!closing) {
      if (this.#failures++ === 0) this.#logger.warn({ url: this.url, reason, retryMs: this.#reconnect ? this.#retryMs : null }, 'cannot reach the daemon');
      else this.#logger.debug({ url: this.url, reason }, 'cannot reach the daemon');
    }
    if (closing) return;
    if (!this.#reconnect) {
      void this.close();
      return;
    }
    this.#retry = this.#clock.setTimer(() => {
      this.#retry = undefined;
      if (this.#closing === undefined) this.#connect();
    }, this.#retryMs);
  }
}
