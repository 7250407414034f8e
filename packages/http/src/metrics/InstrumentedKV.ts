import {
  RosterError,
  realClock,
  type Clock,
  type CompareAndSetOptions,
  type CompareAndSetResult,
  type KV,
  type KVCapabilities,
  type KVOperationOptions,
  type SetOptions,
} from '@roster/kv-adapter';
import { noopMetrics, type KeyKind, type RosterMetrics, type StoreErrorKind, type StoreOperation } from './RosterMetrics.js';

/** Options of {@link InstrumentedKV}. */
export interface InstrumentedKVOptions {
  /** Where every operation's outcome and duration go. @defaultValue {@link noopMetrics} */
  readonly metrics?: RosterMetrics;
  /** The clock that times the operations. @defaultValue the real clock */
  readonly clock?: Clock;
  /**
   * The node's operation deadline, in ms (`node.settings.operationTimeoutMs`; `observe()` sets
   * it from there): an operation that succeeds later than this counts as a `timeout`, because the
   * node had given up waiting for it. @defaultValue no deadline
   */
  readonly deadlineMs?: number;
}

/** What the store's answers say of its health, as {@link InstrumentedKV.health} reports it. */
export interface StoreHealth {
  /** Local time (the clock's `now()`) of the last operation started, or `undefined`. */
  readonly lastStartedAt: number | undefined;
  /** Local time of the last operation that succeeded, or `undefined`. */
  readonly lastSuccessAt: number | undefined;
  /** Local time of the last operation that failed, or `undefined`. */
  readonly lastErrorAt: number | undefined;
  /** The kind and message of the last failure, or `undefined`. */
  readonly lastError: { readonly kind: StoreErrorKind; readonly message: string } | undefined;
  /** Operations started and not yet ended. */
  readonly inFlight: number;
  /**
   * The store round trip: a moving average (weight 1/8) of how long the operations that succeeded
   * in time took, from the call to the answer, in ms; `undefined` before the first. Unlike the
   * PONG round trip (about I by construction), it moves when the store or the network to it is
   * slow: the latency an operator can act on.
   */
  readonly storeRoundTripMs: number | undefined;
}

/**
 * Sets the operation deadline of an {@link InstrumentedKV} after its construction: for
 * `observe()`, whose store is made before the node whose `operationTimeoutMs` it takes. Internal
 * (not exported from the package).
 */
export let setDeadline: (kv: InstrumentedKV, deadlineMs: number) => void;

/** How a `PING <seq>` value and a `PONG <seq>` value look at a follower's id key (docs/protocol.md). */
const PING = /^PING (\d{1,16})(?:\s|$)/;
const PONG = /^PONG (\d{1,16})(?:\s|$)/;
/** A compound key: `<base> <nonce>`, the base ending in the key's name (`roster/<group>/<env>/leader`). */
const COMPOUND = /^(\S+) (0|[1-9]\d{0,8})$/;

/**
 * A {@link KV} around another that records every operation in a {@link RosterMetrics}: its
 * operation, its outcome (the typed error's `code` mapped to a {@link StoreErrorKind}) and its
 * duration on the injected clock. It also keeps the {@link StoreHealth} that `/readyz` reads, and
 * times this follower's PONG round trips (a PING written → its PONG read) from the id-key traffic it sees (a `PING <seq>`
 * written, then the `PONG <seq>` read at the same key) and counts its nonce moves (a write to a
 * compound key `<base> <nonce>` at another nonce than its last write to that base). Values and
 * errors pass through unchanged.
 * `close()` closes the inner store.
 *
 * @example
 * ```ts
 * const metrics = new PromRosterMetrics();
 * const kv = new InstrumentedKV(await RedisKV.connect({ url }), { metrics });
 * const node = createNode({ store: kv, group: 'jobs', env: 'prod' });
 * ```
 */
export class InstrumentedKV implements KV {
  readonly name: string;
  readonly capabilities: KVCapabilities;
  readonly #inner: KV;
  readonly #metrics: RosterMetrics;
  readonly #clock: Clock;
  #deadlineMs: number;
  /** PINGs written and not yet answered, by key: sequence number and local time. */
  readonly #pings = new Map<string, { seq: number; at: number }>();
  /** The nonce of the last write to each compound key's base. */
  readonly #nonces = new Map<string, number>();
  #health: { -readonly [K in keyof StoreHealth]: StoreHealth[K] } = {
    lastStartedAt: undefined,
    lastSuccessAt: undefined,
    lastErrorAt: undefined,
    lastError: undefined,
    inFlight: 0,
    storeRoundTripMs: undefined,
  };

  static {
    setDeadline = (kv, deadlineMs) => {
      kv.#deadlineMs = deadlineMs;
    };
  }

  constructor(inner: KV, options: InstrumentedKVOptions = {}) {
    this.#inner = inner;
    this.name = inner.name;
    this.capabilities = inner.capabilities;
    this.#metrics = options.metrics ?? noopMetrics;
    this.#clock = options.clock ?? realClock;
    this.#deadlineMs = options.deadlineMs ?? Number.POSITIVE_INFINITY;
  }

  /** What the store's answers say of its health now. */
  get health(): StoreHealth {
    return { ...this.#health };
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#record('get', this.#inner.get(key, options)).then((value) => {
      if (value !== null) this.#maybePong(key, value);
      return value;
    });
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    this.#wrote(key);
    const startedAt = this.#clock.now();
    return this.#record('set', this.#inner.set(key, value, options)).then(() => {
      const ping = PING.exec(value);
      if (ping) this.#pings.set(key, { seq: Number(ping[1]), at: startedAt });
      else this.#pings.delete(key);
    });
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#record('delete', this.#inner.delete(key, options));
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    this.#wrote(key);
    return this.#record('append', this.#inner.append(key, value, options));
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#record('take', this.#inner.take(key, options));
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#record('getRange', this.#inner.getRange(key, start, end, options));
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    this.#wrote(key);
    const startedAt = this.#clock.now();
    return this.#record('exchange', this.#inner.exchange(key, value, options)).then((previous) => {
      // A follower's PING that replaced a PONG: the leader answered the PING before it, written
      // at the time recorded (the PONG's own seq may lag: the leader writes before it reads).
      const ping = PING.exec(value);
      const pending = this.#pings.get(key);
      if (pending && previous !== null && PONG.test(previous)) this.#metrics.pongRoundTrip((this.#clock.now() - pending.at) / 1000);
      if (ping && (!pending || (previous !== null && PONG.test(previous)))) this.#pings.set(key, { seq: Number(ping[1]), at: startedAt });
      else if (!ping) this.#pings.delete(key);
      return previous;
    });
  }

  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    this.#wrote(key);
    return this.#record('compareAndSet', this.#inner.compareAndSet(key, expected, value, options));
  }

  time(options?: KVOperationOptions): Promise<number> {
    return this.#record('time', this.#inner.time(options));
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #record<T>(operation: StoreOperation, work: Promise<T>): Promise<T> {
    const h = this.#health;
    const startedAt = this.#clock.now();
    h.lastStartedAt = startedAt;
    h.inFlight++;
    try {
      const value = await work;
      const end = this.#clock.now();
      const late = end - startedAt > this.#deadlineMs;
      if (late) this.#failed(end, 'timeout', `${operation} answered after ${end - startedAt} ms, past the deadline of ${this.#deadlineMs} ms`);
      else {
        h.lastSuccessAt = end;
        const ms = end - startedAt;
        h.storeRoundTripMs = h.storeRoundTripMs === undefined ? ms : h.storeRoundTripMs + (ms - h.storeRoundTripMs) / 8;
      }
      this.#metrics.storeOperation(operation, (end - startedAt) / 1000, late ? 'timeout' : undefined);
      return value;
    } catch (error) {
      const end = this.#clock.now();
      const kind = errorKind(error);
      this.#failed(end, kind, error instanceof Error ? error.message : String(error));
      this.#metrics.storeOperation(operation, (end - startedAt) / 1000, kind);
      throw error;
    } finally {
      h.inFlight--;
    }
  }

  #failed(at: number, kind: StoreErrorKind, message: string): void {
    this.#health.lastErrorAt = at;
    this.#health.lastError = { kind, message };
  }

  /** A write to `key`: when it is a compound key written before at another nonce, a nonce move. */
  #wrote(key: string): void {
    const m = COMPOUND.exec(key);
    if (!m) return;
    const [, base, nonce] = m;
    const last = this.#nonces.get(base!);
    this.#nonces.set(base!, Number(nonce));
    if (last !== undefined && last !== Number(nonce)) this.#metrics.nonceMove(keyKind(base!));
  }

  #maybePong(key: string, value: string): void {
    const ping = this.#pings.get(key);
    const pong = PONG.exec(value);
    if (!ping || !pong || Number(pong[1]) !== ping.seq) return;
    this.#pings.delete(key);
    this.#metrics.pongRoundTrip((this.#clock.now() - ping.at) / 1000);
  }
}

/** The kind of a compound key from its base: `…/leader`, `…/join`, `…/era`, `…/id/<node>`. */
function keyKind(base: string): KeyKind {
  const name = /\/(leader|join|era)$/.exec(base)?.[1];
  if (name === 'leader' || name === 'join' || name === 'era') return name;
  return base.includes('/id/') ? 'id' : 'other';
}

/** The {@link StoreErrorKind} of an operation's error, from the typed error's `code`. */
export function errorKind(error: unknown): StoreErrorKind {
  if (!RosterError.is(error)) return 'other';
  switch (error.code) {
    case 'KV_KEY_UNAVAILABLE':
      return 'key_unavailable';
    case 'KV_STORE_UNAVAILABLE':
      return timedOut(error) ? 'timeout' : 'store_unavailable';
    case 'KV_INVALID_VALUE':
    case 'KV_VALUE_TOO_LARGE':
      return 'malformed_value';
    case 'ABORTED':
      return 'timeout';
    default:
      return 'other';
  }
}

/** True when the store error, or what caused it, says the command timed out. */
function timedOut(error: Error): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    // ioredis's "Command timed out"; a node's own deadline: "<what> took longer than <ms> ms".
    if (/timed? ?out|timeout|took longer than/i.test(e.message)) return true;
  }
  return false;
}
