import type { ConnectionOptions } from 'node:tls';
import { abortReason, sleep, type Clock } from '../clock/Clock.js';
import {
  ConfigError,
  InvalidValueError,
  KVClosedError,
  KVRejectedError,
  StoreAccessError,
  StoreUnavailableError,
  UnsupportedOperationError,
  ValueTooLargeError,
} from '../errors.js';
import { byteRange, decode, encode, firstKv, prefixEnd, type EtcdKeyValue } from './codec.js';
import { EtcdRejection, EtcdTransport, type CallOptions } from './EtcdTransport.js';
import { resolveEtcdSettings, type EtcdSettings } from './resolveEtcdSettings.js';
import type {
  CompareAndSetOptions,
  CompareAndSetResult,
  KV,
  KVCapabilities,
  KVLimits,
  KVOperationOptions,
  SetOptions,
} from '../KV.js';
import type { Logger } from '../logger.js';
import { raceSignal } from '../util/deadline.js';
import { checkKey, checkRange, checkSize, checkValue } from '../validate.js';

/** Options of {@link EtcdKV.connect}. */
export interface EtcdKVOptions extends KVLimits {
  /**
   * Where the store is: `etcd://[user[:pass]@]host[:port][,host[:port]…][/prefix]`, or
   * `etcds://…` for TLS (see {@link parseEtcdUrl}). The members are tried in turn; the path is a
   * key prefix.
   */
  readonly url: string;
  /** User name for etcd's authentication; overrides the URL's. */
  readonly username?: string;
  /** Password; overrides the URL's. */
  readonly password?: string;
  /**
   * TLS: `true` or Node.js TLS options (`ca`, `cert`, `key`, `servername`, …) to use TLS, `false`
   * not to; overrides the URL's scheme. @defaultValue true for `etcds://`, false for `etcd://`
   */
  readonly tls?: boolean | ConnectionOptions;
  /** A key prefix; overrides the URL's path. @defaultValue the URL's path with a trailing `/`, or none */
  readonly prefix?: string;
  /** How long {@link EtcdKV.connect} waits for a member with a leader. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one operation may take, every member and retry included, before it fails with a
   * `StoreUnavailableError` (`timedOut`). @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /**
   * The most requests in flight (sockets) per member; more wait in line. Many members sharing one
   * EtcdKV (hundreds of nodes in one process) need many: at 64, 250 nodes per process queued past
   * their deadlines. @defaultValue 256
   */
  readonly maxSockets?: number;
  /** Receives connection events (a member unreachable, reachable again). @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock of the deadlines. @defaultValue the real clock */
  readonly clock?: Clock;
}

/** Options of the connection attempt of {@link EtcdKV.connect}. */
export interface EtcdKVConnectOptions {
  /** Abandons the connection attempt; `connect` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

interface PendingAppend {
  readonly value: string;
  readonly deadlineAt: number;
  readonly resolve: (length: number) => void;
  readonly reject: (error: unknown) => void;
}

interface Lease {
  /** Local time by which etcd may have expired it: the grant's send time plus the granted TTL. */
  expiresAt: number;
  readonly ready: Promise<string>;
}

/**
 * A {@link KV} on etcd v3 (3.4 or later), through etcd's own JSON gateway (`POST /v3/kv/…`) with
 * Node's `http` and `https`: no client library, so no gRPC stack and no install script.
 *
 * **Operations.** `get` a linearizable range, `set` a put, `delete` a delete-range, `take` a
 * delete-range that returns the deleted value (one request, atomic), `exchange` a put that
 * returns the previous value, `getRange` a get sliced here (etcd has no partial read: the whole
 * value travels), `compareAndSet` one transaction that compares the value (or, for `null`, that
 * the key does not exist) and puts, and otherwise returns the current value. With `prefix`, the
 * transaction compares `expected ≤ value < end` (where `end` is `expected` with its last byte
 * incremented) and, when that fails, a nested transaction compares `value = expected`: exactly
 * "begins with", in one atomic request. `append` is a compare-and-swap on the key's revision,
 * retried on conflict; appends to one key from this client while one is in flight go together
 * in the next transaction, so concurrent appenders cost a few round trips, not one each.
 *
 * **TTLs** are etcd leases: rounded up to whole seconds, and raised to etcd's minimum lease TTL
 * (about 1.5 × the election timeout; 2 s with etcd's defaults). A key with `ttlMs` lives at least
 * `ttlMs`, at most the granted TTL; a lease is shared by the writes that fit in its remaining time.
 *
 * **No clock.** etcd has no clock API: `capabilities.time` is false, {@link EtcdKV.time} and a
 * compare-and-set with `stampToken` reject with `UnsupportedOperationError` (so `@roster/primary`,
 * which needs the store's time, does not run on etcd).
 *
 * **Members and failures.** The members of the URL are tried in turn, starting with the one that
 * last answered. A request that never left (refused connection, a member without a leader) goes
 * to the next member; so does a read whose connection broke. A read that timed out fails; the
 * next operation starts at the next member. A write that was sent and got no answer
 * (the connection broke, the deadline passed) is not sent again: it may have been applied, and
 * that is a `StoreUnavailableError` (`timedOut` when the deadline passed). Wrong credentials,
 * a missing permission and a TLS refusal are `StoreAccessError`; other refusals `KVRejectedError`.
 *
 * **Connections.** A keep-alive pool per member (up to `maxSockets`). A request that timed out
 * keeps its connection for its late answer, which frees it for the next request; while a member
 * does not answer, new connections to it are paced (at once, then 100 ms doubling to 500 ms,
 * jittered): a cut network or a frozen member costs a few connections a second, not one per
 * timed-out request.
 *
 * **Authentication.** With a user name, `connect` authenticates; the token goes with each
 * request, and a request refused for an expired token authenticates again and is sent once more.
 *
 * @example
 * ```ts
 * const kv = await EtcdKV.connect({ url: 'etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379/billing' });
 * try {
 *   await kv.compareAndSet('leader 0', null, 'node-1');
 *   console.log(await kv.get('leader 0')); // 'node-1' (stored at the etcd key 'billing/leader 0')
 * } finally {
 *   await kv.close();
 * }
 * ```
 */
export class EtcdKV implements KV {
  readonly name = 'EtcdKV';
  readonly capabilities: KVCapabilities = Object.freeze({ compareAndSet: true, time: false, comparePrefix: true });
  readonly #settings: EtcdSettings;
  readonly #transport: EtcdTransport;
  readonly #appends = new Map<string, PendingAppend[]>();
  readonly #leases = new Map<number, Lease>();
  #closed = false;

  private constructor(settings: EtcdSettings) {
    this.#settings = settings;
    this.#transport = new EtcdTransport(settings);
  }

  /**
   * Connects: authenticates when a user is given, and resolves once a member reports a raft
   * leader. Retries until `connectTimeoutMs`.
   *
   * @throws {@link ConfigError} for bad options (a bad URL: field `store`).
   * @throws {@link StoreAccessError} for wrong credentials or a TLS refusal.
   * @throws {@link StoreUnavailableError} when no member with a leader answers in time (its
   *   `cause` is the last failure).
   *
   * @example
   * ```ts
   * const kv = await EtcdKV.connect({ url: 'etcds://roster@etcd.internal:2379/app', password: process.env.ETCD_PASSWORD, tls: { ca } });
   * ```
   */
  static async connect(options: EtcdKVOptions, { signal }: EtcdKVConnectOptions = {}): Promise<EtcdKV> {
    const settings = resolveEtcdSettings(options);
    const kv = new EtcdKV(settings);
    const { clock, connectTimeoutMs, commandTimeoutMs } = settings;
    const giveUpAt = clock.now() + connectTimeoutMs;
    let last: unknown;
    try {
      for (;;) {
        if (signal?.aborted) throw abortReason(signal);
        try {
          const status = await kv.#transport.send({
            path: '/v3/maintenance/status',
            body: {},
            write: false,
            deadlineAt: Math.min(giveUpAt, clock.now() + commandTimeoutMs),
            what: 'connect',
            ...(signal && { signal }),
          });
          // With a user, the token was fetched first: wrong credentials have failed already.
          if (status?.leader !== undefined && status.leader !== '0') return kv;
          last = new Error('no member reports a raft leader');
        } catch (error) {
          if (StoreAccessError.is(error) || signal?.aborted) throw error;
          last = error;
        }
        if (clock.now() >= giveUpAt) break;
        await sleep(clock, Math.min(100, Math.max(1, giveUpAt - clock.now())), signal);
      }
      const why = last instanceof Error ? last.message.replace(/^kv: store unavailable: /, '') : String(last);
      throw new StoreUnavailableError(`${settings.target}: not ready within ${connectTimeoutMs} ms: ${why}`, {
        cause: last,
      });
    } catch (error) {
      await kv.close();
      throw error;
    }
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('get', key, options, async (at, call) => {
      const reply = await this.#call('get', '/v3/kv/range', { key: this.#key(key) }, false, at, call);
      return this.#value(key, firstKv(reply));
    });
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#op('set', key, options, async (at, call) => {
      checkValue(key, value, this.#settings.limits);
      await this.#withLease(options?.ttlMs, at, call, (lease) =>
        this.#call('set', '/v3/kv/put', { key: this.#key(key), value: encode(value), ...(lease && { lease }) }, true, at, call),
      );
    });
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#op('delete', key, options, async (at, call) => {
      const reply = await this.#call('delete', '/v3/kv/deleterange', { key: this.#key(key) }, true, at, call);
      return Number(reply?.deleted ?? 0) > 0;
    });
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#op('append', key, options, (deadlineAt) => {
      checkValue(key, value, this.#settings.limits);
      return new Promise<number>((resolve, reject) => {
        const waiting = this.#appends.get(key);
        const entry = { value, deadlineAt, resolve, reject };
        if (waiting) waiting.push(entry);
        else {
          this.#appends.set(key, [entry]);
          void this.#runAppends(key);
        }
      });
    });
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    // A value over the limit is deleted all the same, then reported as too large.
    return this.#op('take', key, options, async (at, call) => {
      const reply = await this.#call('take', '/v3/kv/deleterange', { key: this.#key(key), prev_kv: true }, true, at, call);
      return this.#value(key, reply?.prev_kvs?.[0]);
    });
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#op('getRange', key, options, async (at, call) => {
      checkRange(start, end);
      const reply = await this.#call('getRange', '/v3/kv/range', { key: this.#key(key) }, false, at, call);
      return byteRange(this.#value(key, firstKv(reply)), start, end);
    });
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('exchange', key, options, async (at, call) => {
      checkValue(key, value, this.#settings.limits);
      // The write stays applied even when the value it replaced is reported as too large.
      const reply = await this.#call('exchange', '/v3/kv/put', { key: this.#key(key), value: encode(value), prev_kv: true }, true, at, call);
      return this.#value(key, reply?.prev_kv);
    });
  }

  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#op('compareAndSet', key, options, async (at, call) => {
      checkValue(key, value, this.#settings.limits);
      if (expected !== null && typeof expected !== 'string') {
        throw new InvalidValueError(key, `expected \`expected\` to be a string or null, got ${typeof expected}`);
      }
      const token = options?.stampToken;
      if (token !== undefined && typeof token !== 'string') throw new ConfigError('stampToken', token, 'Expected `stampToken` to be a string');
      if (token) throw new UnsupportedOperationError('compareAndSet with stampToken (etcd has no clock)', this.name);
      const k = this.#key(key);
      return this.#withLease(options?.ttlMs, at, call, async (lease) => {
        const put = { request_put: { key: k, value: encode(value), ...(lease && { lease }) } };
        const read = { request_range: { key: k } };
        let txn: object;
        if (expected === null) txn = { compare: [{ key: k, target: 'CREATE', result: 'EQUAL', create_revision: '0' }], success: [put], failure: [read] };
        else if (!options?.prefix) txn = { compare: [{ key: k, target: 'VALUE', result: 'EQUAL', value: encode(expected) }], success: [put], failure: [read] };
        else if (expected === '') txn = { compare: [{ key: k, target: 'CREATE', result: 'GREATER', create_revision: '0' }], success: [put], failure: [read] };
        else {
          const equal = { compare: [{ key: k, target: 'VALUE', result: 'EQUAL', value: encode(expected) }], success: [put], failure: [read] };
          txn = {
            compare: [
              { key: k, target: 'VALUE', result: 'GREATER', value: encode(expected) },
              { key: k, target: 'VALUE', result: 'LESS', value: prefixEnd(expected) },
            ],
            success: [put],
            failure: [{ request_txn: equal }],
          };
        }
        const reply = await this.#call('compareAndSet', '/v3/kv/txn', txn, true, at, call);
        const inner = reply?.responses?.[0]?.response_txn;
        if (reply?.succeeded === true || inner?.succeeded === true) return { swapped: true, current: value };
        const range = (inner ?? reply)?.responses?.[0]?.response_range;
        return { swapped: false, current: this.#value(key, firstKv(range)) };
      });
    });
  }

  /** Rejects with `UnsupportedOperationError`: etcd has no clock API (`capabilities.time` is false). */
  time(options?: KVOperationOptions): Promise<number> {
    if (this.#closed) return Promise.reject(new KVClosedError(this.name));
    if (options?.signal?.aborted) return Promise.reject(abortReason(options.signal));
    return Promise.reject(new UnsupportedOperationError('time (etcd has no clock API)', this.name));
  }

  /** Closes every connection; operations in flight and every later one reject with `KVClosedError`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#transport.close();
    for (const [key, waiting] of this.#appends) {
      for (const entry of waiting.splice(0)) entry.reject(new KVClosedError(this.name));
      this.#appends.delete(key);
    }
  }

  /** Calls {@link EtcdKV.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #op<T>(what: string, key: string, options: KVOperationOptions | undefined, run: (deadlineAt: number, call: CallOptions) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new KVClosedError(this.name));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const work = (async (): Promise<T> => {
      checkKey(key, this.#settings.limits);
      return run(this.#settings.clock.now() + this.#settings.commandTimeoutMs, { ...(signal && { signal }), ...(options?.urgent === true && { urgent: true }) });
    })();
    return raceSignal(
      work.catch((error: unknown) => {
        if (this.#closed) throw new KVClosedError(this.name);
        if (error instanceof EtcdRejection) throw new KVRejectedError(error.message, { cause: error.reply });
        throw error;
      }),
      signal,
    );
  }

  #call(what: string, path: string, body: object, write: boolean, deadlineAt: number, call: CallOptions): Promise<any> {
    return this.#transport.send({ path, body, write, deadlineAt, what, ...call });
  }

  #key(key: string): string {
    return encode(this.#settings.prefix + key);
  }

  #value(key: string, kv: EtcdKeyValue | undefined): string | null {
    if (kv === undefined) return null;
    const value = decode(kv.value);
    checkSize(key, value, this.#settings.limits);
    return value;
  }

  /** Runs `write` with a lease for `ttlMs` (none without), granting a fresh one when etcd lost it. */
  async #withLease<T>(ttlMs: number | undefined, at: number, call: CallOptions, write: (lease: string | undefined) => Promise<T>): Promise<T> {
    if (ttlMs === undefined) return write(undefined);
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) throw new ConfigError('ttlMs', ttlMs, 'Expected `ttlMs` to be a positive number');
    for (let attempt = 0; ; attempt++) {
      const lease = await this.#lease(ttlMs, at, call);
      try {
        return await write(lease);
      } catch (error) {
        // Refused before it was applied: the lease expired early or the store lost it.
        if (attempt === 0 && error instanceof EtcdRejection && /lease not found/i.test(error.message)) {
          this.#leases.delete(Math.ceil(ttlMs / 1000));
          continue;
        }
        throw error;
      }
    }
  }

  /** A lease that expires no sooner than `ttlMs` from now: a cached one, or a fresh grant. */
  async #lease(ttlMs: number, at: number, call: CallOptions): Promise<string> {
    const seconds = Math.ceil(ttlMs / 1000);
    const cached = this.#leases.get(seconds);
    const { clock } = this.#settings;
    if (cached && cached.expiresAt - clock.now() >= ttlMs) return cached.ready;
    const sentAt = clock.now();
    const lease: Lease = {
      // Until the grant answers, later writes wait for it rather than granting their own.
      expiresAt: Number.POSITIVE_INFINITY,
      ready: this.#call('lease grant', '/v3/lease/grant', { TTL: seconds }, false, at, call).then((reply: { ID?: string; TTL?: string }) => {
        if (typeof reply?.ID !== 'string') throw new StoreUnavailableError(`lease grant (${this.#settings.target}): no lease in the reply`);
        lease.expiresAt = sentAt + Number(reply.TTL ?? seconds) * 1000;
        return reply.ID;
      }),
    };
    this.#leases.set(seconds, lease);
    lease.ready.catch(() => {
      if (this.#leases.get(seconds) === lease) this.#leases.delete(seconds);
    });
    return lease.ready;
  }

  /** Sends the appends waiting for `key`, a batch per transaction, until none is left. */
  async #runAppends(key: string): Promise<void> {
    const waiting = this.#appends.get(key)!;
    try {
      while (waiting.length > 0 && !this.#closed) {
        const batch = waiting.splice(0);
        const now = this.#settings.clock.now();
        const live = batch.filter((entry) => {
          if (entry.deadlineAt > now) return true;
          entry.reject(new StoreUnavailableError(`append (${this.#settings.target}): took longer than ${this.#settings.commandTimeoutMs} ms waiting for the appends before it`, { timedOut: true }));
          return false;
        });
        if (live.length > 0) await this.#appendBatch(key, live);
      }
    } finally {
      if (this.#appends.get(key) === waiting) this.#appends.delete(key);
    }
  }

  /**
   * Appends a batch in one compare-and-swap on the key's revision: first guessing the key absent
   * (a join key is, most of the time), then on the value and revision the failed attempt read.
   */
  async #appendBatch(key: string, batch: readonly PendingAppend[]): Promise<void> {
    const { limits, clock } = this.#settings;
    const k = this.#key(key);
    const deadlineAt = Math.min(...batch.map((entry) => entry.deadlineAt));
    let current: { value: string; revision: string } | null = null;
    try {
      for (let attempt = 0; ; attempt++) {
        const base = current?.value ?? '';
        const next = base + batch.map((entry) => entry.value).join('');
        const bytes = Buffer.byteLength(next);
        if (bytes > limits.maxValueBytes) {
          if (batch.length === 1) throw new ValueTooLargeError(key, bytes, limits.maxValueBytes);
          // Together they do not fit: each one alone, in order, so that those that fit go in.
          for (const entry of batch) await this.#appendBatch(key, [entry]);
          return;
        }
        const compare =
          current === null
            ? { key: k, target: 'CREATE', result: 'EQUAL', create_revision: '0' }
            : { key: k, target: 'MOD', result: 'EQUAL', mod_revision: current.revision };
        // On an existing key, `ignore_lease` keeps its lease, as Redis APPEND keeps a TTL.
        const put = { key: k, value: encode(next), ...(current !== null && { ignore_lease: true }) };
        const reply = await this.#call('append', '/v3/kv/txn', { compare: [compare], success: [{ request_put: put }], failure: [{ request_range: { key: k } }] }, true, deadlineAt, {});
        if (reply?.succeeded === true) {
          let length = Buffer.byteLength(base);
          for (const entry of batch) {
            length += Buffer.byteLength(entry.value);
            entry.resolve(length);
          }
          return;
        }
        const found = firstKv(reply?.responses?.[0]?.response_range);
        current = found === undefined ? null : { value: decode(found.value), revision: String(found.mod_revision) };
        if (clock.now() >= deadlineAt) {
          throw new StoreUnavailableError(`append (${this.#settings.target}): ${attempt + 1} attempts lost to concurrent writes within ${this.#settings.commandTimeoutMs} ms`, { timedOut: true });
        }
        // Other clients append too: back off a little, at random, so that one of us wins.
        if (attempt > 0) await sleep(clock, Math.random() * Math.min(50, 2 ** attempt));
      }
    } catch (error) {
      const mapped = this.#closed ? new KVClosedError(this.name) : error instanceof EtcdRejection ? new KVRejectedError(error.message, { cause: error.reply }) : error;
      for (const entry of batch) entry.reject(mapped);
    }
  }
}
