import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ConnectionOptions } from 'node:tls';
import type { Clock, Timer } from '../clock/Clock.js';
import { KVClosedError, markQueued, StoreAccessError, StoreUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { accessDenied } from '../backend/accessDenied.js';
import { MemberConnections } from './MemberConnections.js';
import type { EtcdEndpoint } from './parseEtcdUrl.js';

/** gRPC status codes, as etcd's JSON gateway reports them in `code`. */
const GRPC = { INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

/** The least time worth a try at another member. */
const MIN_TRY_MS = 5;

/**
 * How long a request that timed out (or was aborted) keeps its connection, waiting for the late
 * answer that frees it for the next request, before the connection is closed.
 */
const ABANDONED_REQUEST_MS = 10_000;

/** Connection failures that happen before a request is sent: another member may take it. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** What one request to etcd needs to know. */
export interface EtcdCall {
  /** The gateway path, e.g. `/v3/kv/range`. */
  readonly path: string;
  readonly body: object;
  /**
   * True when the request changes the store: once sent, a write whose connection broke or timed
   * out may have been applied, so it is never re-sent (the caller gets a StoreUnavailableError).
   * A read whose connection broke is tried on the next member instead.
   */
  readonly write: boolean;
  /** The local time (clock.now()) by which the operation must be done. */
  readonly deadlineAt: number;
  /** For error messages: `get`, `append`, … */
  readonly what: string;
  readonly signal?: AbortSignal;
  /** Woken before the other requests waiting for a connection (`KVOperationOptions.urgent`). */
  readonly urgent?: boolean;
}

/** What a call carries of its operation's options. */
export type CallOptions = Pick<EtcdCall, 'signal' | 'urgent'>;

/** An error reply of the gateway: `{ error, message, code }` with an HTTP status. */
export class EtcdReplyError extends Error {
  constructor(
    readonly grpcCode: number,
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
    this.name = 'EtcdReplyError';
  }
}

/** Options of {@link EtcdTransport}. */
export interface EtcdTransportOptions {
  readonly endpoints: readonly EtcdEndpoint[];
  /** Node.js TLS options; `undefined` for plain HTTP. */
  readonly tls: ConnectionOptions | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The store, redacted, for logs and messages. */
  readonly target: string;
  /** Sockets kept (and requests in flight) per member. */
  readonly maxSockets: number;
}

/** `queued`: the request had waited for a connection before it was sent (see `StoreUnavailableError.queued`). */
type Outcome = { readonly ok: true; readonly body: any } | { readonly ok: false; readonly sent: boolean; readonly error: unknown; readonly timedOut: boolean; readonly queued?: boolean };

/**
 * The HTTP side of EtcdKV: JSON requests to etcd's v3 gateway (`POST /v3/…`), over keep-alive
 * connections, to the members in turn. It remembers the member that last answered and starts
 * there. A request that never left (connection refused, host unreachable, a member without a
 * leader) goes to the next member, and so does a read whose connection broke (a read that timed
 * out has spent the deadline; the next request starts at the next member); a write that was sent and got no answer is not sent again (it may have been applied):
 * that is a {@link StoreUnavailableError}, `timedOut` when the deadline passed. With a user
 * name, it authenticates, sends the token with each request, and authenticates again once when
 * a request is refused for an expired token.
 *
 * **Connections.** Each member has its own keep-alive pool ({@link MemberConnections}). A request
 * that was sent and timed out is not cancelled (HTTP/1.1 would have to close its connection): it
 * is left to finish for up to {@link ABANDONED_REQUEST_MS}, and its connection then serves the
 * next request. One that timed out before it was written to a connection is dropped, never sent late.
 * While a member does not answer, new connections to it are spaced out (at once, then 100 ms
 * doubling to 500 ms, jittered; unlimited again after an answer); a request that finds no free
 * connection waits for one (the newest waiter first: see {@link MemberConnections}), or for its
 * turn to open one, until its deadline, and is not sent if neither comes (the operation fails as
 * timed out, its request never sent).
 */
export class EtcdTransport {
  readonly #o: EtcdTransportOptions;
  readonly #members: readonly MemberConnections[];
  #current = 0;
  #token: Promise<string> | undefined;
  #closed = false;
  /** The level at which the last "no member answered" was logged, until a member answers again. */
  #downLogged: 'warn' | 'debug' | undefined;

  constructor(options: EtcdTransportOptions) {
    this.#o = options;
    this.#members = options.endpoints.map(() => new MemberConnections({ tls: options.tls, maxSockets: options.maxSockets, clock: options.clock }));
  }

  /** Sends `call` and resolves with the parsed reply; rejects with a Roster error. */
  async send(call: EtcdCall): Promise<any> {
    let renewed = false;
    for (;;) {
      const token = this.#o.username === undefined ? undefined : await this.#authToken(call);
      try {
        return await this.#sendToAny(call, token);
      } catch (error) {
        // An expired or revoked token: the request was refused, not applied, so it may go again.
        if (token !== undefined && !renewed && isTokenRefusal(error)) {
          renewed = true;
          this.#o.logger.debug({ store: this.#o.target, error: describe(error) }, 'etcd: token refused, authenticating again');
          if (this.#token !== undefined && (await this.#token.catch(() => undefined)) === token) this.#token = undefined;
          continue;
        }
        throw this.#map(error, call);
      }
    }
  }

  /** Closes every socket; requests in flight fail. Idempotent. */
  close(): void {
    this.#closed = true;
    for (const member of this.#members) member.destroy();
  }

  #authToken(call: EtcdCall): Promise<string> {
    if (this.#token === undefined) {
      const token = this.#sendToAny(
        { path: '/v3/auth/authenticate', body: { name: this.#o.username, password: this.#o.password ?? '' }, write: false, deadlineAt: call.deadlineAt, what: 'authenticate' },
        undefined,
      ).then(
        (reply: { token?: unknown }) => {
          if (typeof reply.token !== 'string' || reply.token === '') throw new StoreAccessError(`${this.#o.target}: authentication gave no token`);
          return reply.token;
        },
        (error: unknown) => {
          // A server without authentication takes requests without a token.
          if (error instanceof EtcdReplyError && /authentication is not enabled/i.test(error.message)) return '';
          throw error;
        },
      );
      this.#token = token;
      token.catch(() => {
        if (this.#token === token) this.#token = undefined;
      });
    }
    return this.#token.catch((error: unknown) => {
      throw this.#map(error, { ...call, what: `${call.what}: authenticate` });
    });
  }

  async #sendToAny(call: EtcdCall, token: string | undefined): Promise<any> {
    const { endpoints } = this.#o;
    const start = this.#current;
    let last: Outcome | undefined;
    for (let i = 0; i < endpoints.length; i++) {
      if (this.#closed) throw new KVClosedError('EtcdKV');
      const index = (start + i) % endpoints.length;
      const remaining = call.deadlineAt - this.#o.clock.now();
      // A try with a few ms left would only time out: the deadline is spent.
      if (remaining < MIN_TRY_MS && last) break;
      const outcome = await this.#request(index, call, token);
      if (outcome.ok) {
        if (this.#current !== index) this.#o.logger.debug({ store: this.#o.target, member: address(endpoints[index]!) }, 'etcd: using member');
        this.#current = index;
        if (this.#downLogged) this.#o.logger[this.#downLogged === 'warn' ? 'info' : 'debug']({ store: this.#o.target }, 'etcd: reachable again');
        this.#downLogged = undefined;
        return outcome.body;
      }
      last = outcome;
      if (outcome.error instanceof EtcdReplyError && !isMemberUnavailable(outcome.error)) throw outcome.error;
      // This member failed: the next operation starts at the next one.
      if (this.#current === index) this.#current = (index + 1) % endpoints.length;
      if (outcome.sent && call.write) break;
      if (call.signal?.aborted) break;
    }
    if (!this.#downLogged && !this.#closed && last?.ok === false) {
      // A lost or refused connection is news; a slow answer is the caller's to report (its
      // operation fails as timed out), and on a loaded machine it comes and goes: debug only.
      this.#downLogged = last.timedOut ? 'debug' : 'warn';
      this.#o.logger[this.#downLogged]({ store: this.#o.target, error: describe(last.error) }, 'etcd: no member answered');
    }
    throw last?.ok === false ? Object.assign(new Error('request failed'), { outcome: last }) : new Error('no member tried');
  }

  /**
   * Sends `call` to member `index` once a connection is free or a new one may be opened; when
   * neither comes before the deadline, does not send it (`sent: false`, `timedOut`).
   */
  async #request(index: number, call: EtcdCall, token: string | undefined): Promise<Outcome> {
    const endpoint = this.#o.endpoints[index]!;
    const member = this.#members[index]!;
    const { clock } = this.#o;
    let waited = false;
    while (!member.tryAcquire()) {
      if (call.signal?.aborted) return { ok: false, sent: false, error: call.signal.reason, timedOut: false };
      const left = call.deadlineAt - clock.now() - MIN_TRY_MS;
      if (this.#closed || left <= 0) {
        // A refusal of access (TLS) stays one, so that it is reported as such.
        const last = member.lastFailure;
        const error =
          accessDenied(last) !== undefined
            ? last
            : member.waitMs > 0
              ? new Error(`${describe(last)} (no new connection to ${address(endpoint)} for ${Math.round(member.waitMs)} ms)`)
              : new Error(`no free connection to ${address(endpoint)} within the deadline`);
        return { ok: false, sent: false, error, timedOut: !this.#closed };
      }
      // Until a new connection may open, within the deadline; a connection freed by a late answer
      // wakes us sooner.
      waited = true;
      await member.wait(Math.min(member.waitMs || left, left), call.signal, call.urgent === true);
    }
    // Sent in this turn of the event loop: the connection tryAcquire counted on is still there.
    return this.#send(endpoint, member, call, token, Math.max(1, call.deadlineAt - clock.now()), waited);
  }

  /** `queued`: the request waited for a connection first; a deadline that passes while it is out says so. */
  #send(endpoint: EtcdEndpoint, member: MemberConnections, call: EtcdCall, token: string | undefined, timeoutMs: number, queued: boolean): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const payload = Buffer.from(JSON.stringify(call.body));
      let sent = false;
      let done = false;
      let abandoned: Timer | undefined;
      const finish = (outcome: Outcome): void => {
        if (done) return;
        done = true;
        timer.cancel();
        call.signal?.removeEventListener('abort', onAbort);
        if (outcome.ok || outcome.error instanceof EtcdReplyError) member.answered();
        else if (!call.signal?.aborted) member.failed(outcome.error);
        resolve(outcome);
      };
      /**
       * Gives up on the answer. A request not yet written to its connection is destroyed, so that
       * it is never sent late; one that was sent keeps its connection, which a late answer frees.
       */
      const abandon = (): void => {
        if (!sent) request.destroy();
        else abandoned ??= this.#o.clock.setTimer(() => request.destroy(), ABANDONED_REQUEST_MS);
      };
      const request = (this.#o.tls ? httpsRequest : httpRequest)(
        {
          agent: member.agent,
          host: endpoint.host,
          port: endpoint.port,
          method: 'POST',
          path: call.path,
          headers: { 'content-type': 'application/json', 'content-length': payload.length, ...(token && { authorization: token }) },
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => finish({ ok: false, sent: true, error, timedOut: false }));
          response.on('end', () => {
            if (done) return;
            const text = Buffer.concat(chunks).toString();
            let body: any;
            try {
              body = JSON.parse(text);
            } catch {
              finish({ ok: false, sent: true, error: new EtcdReplyError(GRPC.UNAVAILABLE, response.statusCode ?? 0, `HTTP ${response.statusCode}: ${text.slice(0, 200)}`), timedOut: false });
              return;
            }
            if (response.statusCode === 200 && (body === null || typeof body !== 'object' || body.error === undefined)) finish({ ok: true, body });
            else {
              const reply = new EtcdReplyError(Number(body?.code ?? 0), response.statusCode ?? 0, String(body?.message ?? body?.error ?? text.slice(0, 200)));
              finish({ ok: false, sent: !refusedBeforeApplying(reply), error: reply, timedOut: false });
            }
          });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, sent: sent && !NOT_SENT.has(error.code ?? ''), error, timedOut: false }));
      request.on('finish', () => (sent = true));
      request.on('close', () => abandoned?.cancel());
      const timer = this.#o.clock.setTimer(() => {
        finish({ ok: false, sent, error: new Error(`no answer from ${address(endpoint)} within ${Math.round(timeoutMs)} ms`), timedOut: true, queued });
        abandon();
      }, timeoutMs);
      const onAbort = (): void => {
        if (queued) markQueued(call.signal!.reason);
        finish({ ok: false, sent: true, error: call.signal!.reason, timedOut: false });
        abandon();
      };
      call.signal?.addEventListener('abort', onAbort, { once: true });
      request.end(payload);
    });
  }

  /** Turns a failure into a Roster error. */
  #map(error: unknown, call: EtcdCall): unknown {
    if (this.#closed) return new KVClosedError('EtcdKV');
    const outcome = (error as { outcome?: Outcome }).outcome;
    const cause = outcome?.ok === false ? outcome.error : error;
    if (call.signal?.aborted && cause === call.signal.reason) return cause;
    if (cause instanceof StoreAccessError || cause instanceof StoreUnavailableError || cause instanceof KVClosedError) return cause;
    const what = `${call.what} (${this.#o.target})`;
    if (cause instanceof EtcdReplyError) {
      if (isAccessRefusal(cause)) return new StoreAccessError(`${what}: ${cause.message}`, { cause });
      if (isMemberUnavailable(cause) || cause.grpcCode === GRPC.DEADLINE_EXCEEDED) {
        return new StoreUnavailableError(`${what}: ${cause.message}`, { cause, timedOut: /timed out|deadline/i.test(cause.message) });
      }
      return new EtcdRejection(`${what}: ${cause.message}`, cause);
    }
    const denied = accessDenied(cause);
    if (denied !== undefined) return new StoreAccessError(`${what}: ${denied}`, { cause });
    const timedOut = outcome?.ok === false && outcome.timedOut;
    const ambiguous = outcome?.ok === false && outcome.sent && call.write ? ' (the write may have been applied; it was not sent again)' : '';
    // A deadline that passed while the request waited for a connection (never sent), or after it.
    const queued = outcome?.ok === false && (outcome.queued === true || !outcome.sent);
    return new StoreUnavailableError(`${what}: ${describe(cause)}${ambiguous}`, { cause, timedOut, queued });
  }
}

/** A reply that is neither availability nor access: the caller maps it (KVRejectedError, a missing lease). */
export class EtcdRejection extends Error {
  constructor(
    message: string,
    readonly reply: EtcdReplyError,
  ) {
    super(message);
    this.name = 'EtcdRejection';
  }
}

/** etcd refused the request before proposing it: safe to send to another member. */
function refusedBeforeApplying(reply: EtcdReplyError): boolean {
  return /no leader|not capable|too many requests|unhealthy cluster/i.test(reply.message) || reply.grpcCode === GRPC.UNAUTHENTICATED || reply.grpcCode === GRPC.PERMISSION_DENIED;
}

/** A reply saying this member cannot serve now (no leader, stopping, timed out, overloaded). */
function isMemberUnavailable(reply: EtcdReplyError): boolean {
  if (reply.grpcCode === GRPC.UNAVAILABLE || reply.grpcCode === GRPC.DEADLINE_EXCEEDED) return true;
  if (reply.grpcCode === GRPC.RESOURCE_EXHAUSTED && /too many requests/i.test(reply.message)) return true;
  return reply.httpStatus >= 500 && reply.grpcCode !== GRPC.INVALID_ARGUMENT && reply.grpcCode !== GRPC.FAILED_PRECONDITION && reply.grpcCode !== GRPC.PERMISSION_DENIED;
}

function isTokenRefusal(error: unknown): boolean {
  const outcome = (error as { outcome?: Outcome }).outcome;
  const cause = outcome?.ok === false ? outcome.error : error;
  return cause instanceof EtcdReplyError && (/invalid auth token|revision of auth store is old|user name is empty/i.test(cause.message) || cause.grpcCode === GRPC.UNAUTHENTICATED);
}

function isAccessRefusal(reply: EtcdReplyError): boolean {
  return reply.grpcCode === GRPC.PERMISSION_DENIED || /authentication failed|invalid user ID or password|user name not found|permission denied/i.test(reply.message);
}

function address(endpoint: EtcdEndpoint): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
