import type { ConnectionOptions } from 'node:tls';
import { connect as connectNats, type ConnectionOptions as NatsConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV as Bucket } from '@nats-io/kv';
import { connectSpacing } from '../backend/ConnectBackOff.js';
import { abortReason, sleep, type Clock } from '../clock/Clock.js';
import { ConfigError, InvalidValueError, KVClosedError, KVRejectedError, StoreAccessError, StoreUnavailableError, ValueTooLargeError } from '../errors.js';
import { byteRange } from '../etcd/codec.js';
import type { CompareAndSetOptions, CompareAndSetResult, KV, KVCapabilities, KVLimits, KVOperationOptions, SetOptions } from '../KV.js';
import type { Logger } from '../logger.js';
import { raceSignal, withDeadline } from '../util/deadline.js';
import { checkKey, checkRange, checkSize, checkValue } from '../validate.js';
import { decodeValue, encodeKey, encodeValue, type ValueMeta } from './codec.js';
import { jetStreamCode, mapNatsError, WRONG_LAST_SEQUENCE } from './mapNatsError.js';
import { resolveNatsSettings, type NatsSettings } from './resolveNatsSettings.js';

/** Options of {@link NatsKV.connect}. */
export interface NatsKVOptions extends KVLimits {
  /**
   * Where the store is: `nats://[user:pass@|token@]host[:port][,host[:port]…][/bucket][?replicas=N]`,
   * or `tls://…` for TLS (see {@link parseNatsUrl}).
   */
  readonly url: string;
  /** User name; overrides the URL's. */
  readonly username?: string;
  /** Password; overrides the URL's. */
  readonly password?: string;
  /** Token (`authorization { token }` on the server); overrides the URL's. */
  readonly token?: string;
  /**
   * TLS: `true` or Node.js TLS options (`ca`, `cert`, `key`, `servername`, …) to require TLS,
   * `false` to follow the server (TLS when it requires it). @defaultValue true for `tls://`
   */
  readonly tls?: boolean | ConnectionOptions;
  /** The JetStream key-value bucket; created (history 1) when absent. @defaultValue the URL's path, else `"roster"` */
  readonly bucket?: string;
  /** Replicas of the bucket when Roster creates it: 3 on a 3-server cluster. @defaultValue the URL's `replicas`, else 1 */
  readonly replicas?: number;
  /**
   * How long {@link NatsKV.connect} waits for a server, the bucket and a first write (a new
   * replicated bucket needs a stream leader); also the bound of every later dial. @defaultValue 5000
   */
  readonly connectTimeoutMs?: number;
  /** How long one operation may take, retries included, before it fails as unavailable (`timedOut`). @defaultValue 1000 */
  readonly commandTimeoutMs?: number;
  /** Receives connection events (lost, back). @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock of the deadlines. @defaultValue the real clock */
  readonly clock?: Clock;
}

/** Options of the connection attempt of {@link NatsKV.connect}. */
export interface NatsKVConnectOptions {
  /** Abandons the connection attempt; `connect` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** How many redials since the connection was last up: the spacing of the next one grows with it. */
interface RedialPacing {
  dials: number;
}

/** A key as last read: its revision (0 when never written) and its live value. */
interface Current {
  /** The key's last JetStream sequence (a put, or a delete marker), 0 when there is none. */
  readonly revision: number;
  /** The value, `null` when absent, deleted or expired. */
  readonly value: string | null;
  /** True when a put is stored, live or expired. */
  readonly stored: boolean;
  /** Store time at which the value expires, when it has a TTL. */
  readonly expiresAt: number | undefined;
}

/** What a read-modify-write decided: write a value, delete the key, or nothing. */
type Plan<T> = { readonly result: T; readonly write?: { readonly value: string; readonly meta: ValueMeta } | 'delete' };

/** The key of the store clock; it holds a `.`, which no encoded Roster key does. */
const CLOCK_KEY = 'roster.clock';
/** How long a sample of the store clock (its offset from the local clock) is used to judge TTLs. */
const CLOCK_SAMPLE_MS = 5000;
/** Room left for the protocol and headers under the server's `max_payload`. */
const PAYLOAD_MARGIN = 512;
/** A connection with no PONG for this long (two pings) is dropped and reconnected. */
const PING_INTERVAL_MS = 2000;

/**
 * A {@link KV} on a NATS JetStream key-value bucket (nats-server 2.9 or later), through the
 * official v3 clients (`@nats-io/transport-node`, `@nats-io/jetstream`, `@nats-io/kv`: optional
 * peer dependencies of this package).
 *
 * **Operations.** Every write that depends on the current value is a read of the key's last
 * message and a write conditioned on its sequence (`Nats-Expected-Last-Subject-Sequence`, what
 * `kv.update` and `kv.create` send), retried when another client wrote in between: `append`,
 * `take`, `exchange`, `delete` and `compareAndSet` (whole value or prefix, compared here on the
 * read value). The operations of one client on one key queue behind one another, so a burst of
 * appends costs no conflicts. `set` is a plain put. Reads go to the stream leader (the bucket is
 * opened without direct get, which a replica may serve stale).
 *
 * **TTLs.** nats-server before 2.11 has no per-key TTL (only the bucket's `max_age`, one for every
 * key): a TTL is stored with the value and judged on the store's clock: the key reads as absent
 * once the JetStream timestamp of its write plus `ttlMs` is past. The store's clock is sampled
 * (see {@link NatsKV.time}) at most every 5 s while TTLs are judged, and read as a lower bound, so
 * a key lives at least `ttlMs`. An expired key stays in the bucket until it is written, deleted or
 * taken. (With 2.11's per-message TTL, `Nats-TTL`, the server would remove it.)
 *
 * **Clock.** {@link NatsKV.time} writes a clock key and reads back the JetStream timestamp the
 * stream leader gave it; a stamp (`stampToken`) is the timestamp of the write itself, filled in
 * when the value is read. Both are the stream leader's clock.
 *
 * **Connection.** The client reconnects forever, paced as every backend's connections are
 * (`connectSpacing`: 100 ms doubling to 500 ms between two dials of one server, jittered), so a
 * server that does not answer sees at most about two connections a second. While it is
 * disconnected every operation fails at once with a `StoreUnavailableError` (nothing is queued
 * to be sent later). Each operation is bounded by `commandTimeoutMs`.
 *
 * @example
 * ```ts
 * const kv = await NatsKV.connect({ url: 'nats://10.0.0.1:4222,10.0.0.2:4222,10.0.0.3:4222/billing?replicas=3' });
 * try {
 *   await kv.compareAndSet('leader 0', null, 'node-1');
 *   console.log(await kv.get('leader 0')); // 'node-1' (stored at the NATS key 'leader=200')
 * } finally {
 *   await kv.close();
 * }
 * ```
 */
export class NatsKV implements KV {
  readonly name = 'NatsKV';
  readonly capabilities: KVCapabilities = Object.freeze({ compareAndSet: true, time: true, comparePrefix: true });
  readonly #settings: NatsSettings;
  readonly #nc: NatsConnection;
  readonly #bucket: Bucket;
  readonly #pacing: RedialPacing;
  readonly #lanes = new Map<string, Promise<void>>();
  #clockOffset: { readonly value: number; readonly sampledAt: number } | undefined;
  #sampling: Promise<number> | undefined;
  #connected = true;
  #closed = false;

  private constructor(settings: NatsSettings, nc: NatsConnection, bucket: Bucket, pacing: RedialPacing) {
    this.#settings = settings;
    this.#nc = nc;
    this.#bucket = bucket;
    this.#pacing = pacing;
    void this.#watchStatus();
  }

  /**
   * Connects to a server of the URL and opens the bucket (creating it, with history 1 and
   * `replicas`, when absent). Retries until `connectTimeoutMs`.
   *
   * @throws {@link ConfigError} for bad options (a bad URL: field `store`).
   * @throws {@link StoreAccessError} for wrong credentials, a missing permission or a TLS refusal.
   * @throws {@link StoreUnavailableError} when no server with JetStream answers in time (its
   *   `cause` is the last failure).
   *
   * @example
   * ```ts
   * const kv = await NatsKV.connect({ url: 'tls://roster@nats.internal:4222/app', password: process.env.NATS_PASSWORD, tls: { ca } });
   * ```
   */
  static async connect(options: NatsKVOptions, { signal }: NatsKVConnectOptions = {}): Promise<NatsKV> {
    const settings = resolveNatsSettings(options);
    const { clock, connectTimeoutMs, target } = settings;
    const giveUpAt = clock.now() + connectTimeoutMs;
    let last: unknown;
    let nc: NatsConnection | undefined;
    let kv: NatsKV | undefined;
    let attempts = 0;
    const pacing: RedialPacing = { dials: 0 };
    try {
      for (;;) {
        if (signal?.aborted) throw abortReason(signal);
        try {
          nc ??= await connectWithin(settings, pacing, Math.max(1, giveUpAt - clock.now()), signal);
          if (kv === undefined) {
            // The client's own request timeout is the operation's bound, as the deadline is.
            const js = jetstream(nc, { timeout: settings.commandTimeoutMs });
            const bucket = await raceSignal(new Kvm(js).create(settings.bucket, { history: 1, replicas: settings.replicas, allow_direct: false }), signal);
            kv = new NatsKV(settings, nc, bucket, pacing);
          }
          // A replicated bucket just created has no stream leader for a moment (writes get "no
          // responders"): ready once a write and its read-back go through, which samples the clock too.
          await withDeadline(clock, Math.max(1, giveUpAt - clock.now()), 'connect', kv.#sampleClock(), signal);
          return kv;
        } catch (error) {
          if (signal?.aborted) throw abortReason(signal);
          const mapped = mapNatsError(error, { backend: 'NatsKV', operation: 'connect', closed: false });
          if (StoreAccessError.is(mapped) || error instanceof ConfigError) throw mapped;
          last = mapped;
        }
        if (clock.now() >= giveUpAt) break;
        await sleep(clock, Math.min(connectSpacing(attempts++), Math.max(1, giveUpAt - clock.now())), signal);
      }
      const why = last instanceof Error ? last.message.replace(/^kv: store unavailable: /, '') : String(last);
      throw new StoreUnavailableError(`${target}: not ready within ${connectTimeoutMs} ms: ${why}`, { cause: last });
    } catch (error) {
      await (kv?.close() ?? nc?.close())?.catch(() => {});
      throw error;
    }
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('get', key, options, async (ek) => this.#sized(key, (await this.#read(ek)).value));
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#op('set', key, options, async (ek) => {
      checkValue(key, value, this.#settings.limits);
      const meta = ttlMeta(options?.ttlMs);
      await this.#put(key, ek, encodeValue(value, meta), undefined);
    });
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    // An expired value is deleted too (it is garbage), but did not exist for the caller.
    return this.#op('delete', key, options, async (ek, at) => {
      const { result } = await this.#modify(key, ek, at, (current) => ({ result: current.value !== null, ...(current.stored && { write: 'delete' as const }) }));
      return result;
    });
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#op('append', key, options, async (ek, at) => {
      checkValue(key, value, this.#settings.limits);
      const { result } = await this.#modify(key, ek, at, (current) => {
        const next = (current.value ?? '') + value;
        const bytes = Buffer.byteLength(next);
        if (bytes > this.#settings.limits.maxValueBytes) throw new ValueTooLargeError(key, bytes, this.#settings.limits.maxValueBytes);
        // An append keeps the key's expiry, as Redis APPEND keeps a TTL.
        const meta = current.value !== null && current.expiresAt !== undefined ? { x: current.expiresAt } : {};
        return { result: bytes, write: { value: next, meta } };
      });
      return result;
    });
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    // A value over the limit is deleted all the same, then reported as too large.
    return this.#op('take', key, options, async (ek, at) => {
      const { result: taken } = await this.#modify(key, ek, at, (current) => ({ result: current.value, ...(current.stored && { write: 'delete' as const }) }));
      return this.#sized(key, taken);
    });
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#op('getRange', key, options, async (ek) => {
      checkRange(start, end);
      // JetStream has no partial read: the whole value travels and is sliced here.
      return byteRange(this.#sized(key, (await this.#read(ek)).value), start, end);
    });
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('exchange', key, options, async (ek, at) => {
      checkValue(key, value, this.#settings.limits);
      // The write stays applied even when the value it replaced is reported as too large.
      const { result: previous } = await this.#modify(key, ek, at, (current) => ({ result: current.value, write: { value, meta: {} } }));
      return this.#sized(key, previous);
    });
  }

  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#op('compareAndSet', key, options, async (ek, at) => {
      checkValue(key, value, this.#settings.limits);
      if (expected !== null && typeof expected !== 'string') {
        throw new InvalidValueError(key, `expected \`expected\` to be a string or null, got ${typeof expected}`);
      }
      const token = options?.stampToken;
      if (token !== undefined && typeof token !== 'string') throw new ConfigError('stampToken', token, 'Expected `stampToken` to be a string');
      const meta: ValueMeta = { ...ttlMeta(options?.ttlMs), ...(token && { s: token }) };
      const prefix = options?.prefix === true;
      const { result, revision } = await this.#modify(key, ek, at, (current): Plan<CompareAndSetResult> => {
        const matches =
          expected === null ? current.value === null : current.value !== null && (prefix ? current.value.startsWith(expected) : current.value === expected);
        return matches ? { result: { swapped: true, current: value }, write: { value, meta } } : { result: { swapped: false, current: current.value } };
      });
      if (!result.swapped || !token || revision === undefined) return { swapped: result.swapped, current: this.#sized(key, result.current) };
      // The stamp is the write's own JetStream timestamp: read it back.
      const written = await this.#bucket.get(ek, { revision });
      const time = written?.created.getTime();
      if (time === undefined) throw new StoreUnavailableError(`compareAndSet (${this.#settings.target}): the stamped write was not found again`);
      return { swapped: true, current: value.split(token).join(String(time)), time };
    });
  }

  /**
   * The store's clock: writes the clock key (`roster.clock`) and reads back the JetStream
   * timestamp the stream leader gave that write, or a later one's (two round trips). The result is
   * a lower bound of the store's time when it resolves: the timestamp plus the local time elapsed
   * since the read's answer, in whole ms as the stamps of {@link compareAndSet} are (a fraction of
   * a ms elapsed made it exceed a stamp taken in the same ms).
   */
  time(options?: KVOperationOptions): Promise<number> {
    return this.#op('time', CLOCK_KEY, options, async () => Math.floor(await this.#sampleClock()), true);
  }

  /** Closes the connection; operations in flight and every later one reject with `KVClosedError`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#nc.close().catch(() => {});
  }

  /** Calls {@link NatsKV.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Runs one operation: closed and abort checks, key check, the deadline, the error mapping. */
  #op<T>(what: string, key: string, options: KVOperationOptions | undefined, run: (ek: string, deadlineAt: number) => Promise<T>, raw = false): Promise<T> {
    if (this.#closed) return Promise.reject(new KVClosedError(this.name));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const { clock, commandTimeoutMs, target, limits } = this.#settings;
    const work = (async (): Promise<T> => {
      if (!raw) checkKey(key, limits);
      if (!this.#connected) throw new StoreUnavailableError(`${what} (${target}): disconnected, reconnecting`);
      return run(raw ? key : encodeKey(key), clock.now() + commandTimeoutMs);
    })().catch((error: unknown) => {
      throw mapNatsError(error, { backend: this.name, operation: `${what} (${target})`, closed: this.#closed });
    });
    return raceSignal(withDeadline(clock, commandTimeoutMs, `${what} (${target})`, work), signal).catch((error: unknown) => {
      throw this.#closed ? new KVClosedError(this.name) : error;
    });
  }

  /** The key's last message, decoded; TTLs judged on the store's clock. */
  async #read(ek: string): Promise<Current> {
    const entry = await this.#bucket.get(ek);
    if (entry === null) return { revision: 0, value: null, stored: false, expiresAt: undefined };
    if (entry.operation !== 'PUT') return { revision: entry.revision, value: null, stored: false, expiresAt: undefined };
    let decoded;
    try {
      decoded = decodeValue(entry.string(), entry.created.getTime());
    } catch (error) {
      throw new KVRejectedError(`the value at NATS key ${JSON.stringify(ek)} has a header that is not Roster's`, { cause: error });
    }
    if (decoded.expiresAt !== undefined && decoded.expiresAt <= (await this.#storeNow())) {
      return { revision: entry.revision, value: null, stored: true, expiresAt: undefined };
    }
    return { revision: entry.revision, value: decoded.value, stored: true, expiresAt: decoded.expiresAt };
  }

  /**
   * A read-modify-write: reads the key, lets `decide` plan the write, and writes on condition
   * that the key's last sequence is still the one read; on a conflict it reads again, until the
   * deadline. Queued behind this client's other writes to the key.
   */
  #modify<T>(key: string, ek: string, deadlineAt: number, decide: (current: Current) => Plan<T>): Promise<{ result: T; revision?: number }> {
    return this.#serial(ek, async () => {
      const { clock, commandTimeoutMs, target } = this.#settings;
      for (let attempt = 0; ; attempt++) {
        if (clock.now() >= deadlineAt) {
          const why = attempt === 0 ? "waiting for this client's earlier writes to the key" : `${attempt} attempts lost to concurrent writes`;
          throw new StoreUnavailableError(`${target}: ${JSON.stringify(key)}: took longer than ${commandTimeoutMs} ms ${why}`, { timedOut: true });
        }
        const current = await this.#read(ek);
        const plan = decide(current);
        if (plan.write === undefined) return { result: plan.result };
        try {
          let revision: number;
          if (plan.write === 'delete') {
            await this.#bucket.delete(ek, { previousSeq: current.revision });
            revision = current.revision;
          } else {
            revision = await this.#put(key, ek, encodeValue(plan.write.value, plan.write.meta), current.revision);
          }
          return { result: plan.result, revision };
        } catch (error) {
          if (jetStreamCode(error) !== WRONG_LAST_SEQUENCE) throw error;
          // Another client wrote in between: read again, after a short random pause when it repeats.
          if (attempt > 0) await sleep(clock, Math.random() * Math.min(20, 2 ** attempt));
        }
      }
    });
  }

  /** Writes `stored` at `ek`, on condition that the key's last sequence is `previousSeq` when given. */
  async #put(key: string, ek: string, stored: string, previousSeq: number | undefined): Promise<number> {
    const bytes = Buffer.byteLength(stored);
    const max = this.#nc.info?.max_payload;
    if (max !== undefined && bytes + ek.length + PAYLOAD_MARGIN > max) throw new ValueTooLargeError(key, bytes, max - ek.length - PAYLOAD_MARGIN);
    return this.#bucket.put(ek, stored, { ...(previousSeq !== undefined && { previousSeq }), timeout: this.#settings.commandTimeoutMs });
  }

  /** Runs `fn` after this client's earlier queued operations on `ek`. */
  #serial<T>(ek: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#lanes.get(ek) ?? Promise.resolve();
    const run = before.then(fn);
    const tail = run.then(
      () => {},
      () => {},
    );
    this.#lanes.set(ek, tail);
    void tail.then(() => {
      if (this.#lanes.get(ek) === tail) this.#lanes.delete(ek);
    });
    return run;
  }

  #sized(key: string, value: string | null): string | null {
    if (value !== null) checkSize(key, value, this.#settings.limits);
    return value;
  }

  /** A lower bound of the store's time now, from a recent sample of its clock. */
  async #storeNow(): Promise<number> {
    const { clock } = this.#settings;
    const offset = this.#clockOffset;
    if (offset !== undefined && clock.now() - offset.sampledAt < CLOCK_SAMPLE_MS) return clock.now() + offset.value;
    this.#sampling ??= this.#sampleClock().finally(() => {
      this.#sampling = undefined;
    });
    return this.#sampling;
  }

  /**
   * Writes the clock key and reads its last message back; records the store clock's offset. The
   * message read may be another client's later write of the key (with history 1 ours may be gone
   * already): either was stamped before the read's answer arrived, so its timestamp less the local
   * time of that answer is no more than the true offset.
   */
  async #sampleClock(): Promise<number> {
    const { clock, commandTimeoutMs, target } = this.#settings;
    await this.#bucket.put(CLOCK_KEY, '', { timeout: commandTimeoutMs });
    const entry = await this.#bucket.get(CLOCK_KEY);
    const answeredAt = clock.now();
    if (entry === null) throw new StoreUnavailableError(`time (${target}): the clock key was not found after its write`);
    const value = entry.created.getTime() - answeredAt;
    this.#clockOffset = { value, sampledAt: answeredAt };
    return clock.now() + value;
  }

  /** Follows the connection's state: logs each change once, fails operations fast while disconnected. */
  async #watchStatus(): Promise<void> {
    const { logger, target } = this.#settings;
    try {
      for await (const status of this.#nc.status()) {
        if (status.type === 'disconnect' && this.#connected) {
          this.#connected = false;
          logger.warn({ store: target, server: (status as { server?: string }).server }, 'nats: connection lost, reconnecting');
        } else if (status.type === 'reconnect' && !this.#connected) {
          this.#connected = true;
          this.#pacing.dials = 0;
          logger.info({ store: target, server: (status as { server?: string }).server }, 'nats: connected again');
        }
      }
    } catch {
      // The status iterator ends with the connection; nothing to report.
    }
  }
}

/** The header of a value written with `ttlMs`. */
function ttlMeta(ttlMs: number | undefined): ValueMeta {
  if (ttlMs === undefined) return {};
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) throw new ConfigError('ttlMs', ttlMs, 'Expected `ttlMs` to be a positive number');
  return { t: Math.ceil(ttlMs) };
}

/**
 * Connects within `ms`, or rejects (with a `TimeoutError`, or `signal`'s reason); a connection that
 * succeeds after that is closed at once, so an abandoned attempt leaves nothing open.
 */
async function connectWithin(settings: NatsSettings, pacing: RedialPacing, ms: number, signal: AbortSignal | undefined): Promise<NatsConnection> {
  const pending = connectNats(connectionOptions(settings, pacing));
  try {
    return await withDeadline(settings.clock, ms, 'connect', pending, signal);
  } catch (error) {
    void pending.then((late) => late.close()).catch(() => {});
    throw error;
  }
}

/**
 * The nats.js options: bounded reconnects, pings that detect a dead server, TLS and credentials.
 * `timeout` bounds each dial, the first and every reconnection's.
 */
function connectionOptions(settings: NatsSettings, pacing: RedialPacing): NatsConnectionOptions {
  const { servers, tls, username, password, token, connectTimeoutMs } = settings;
  return {
    servers: servers.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`),
    name: 'roster',
    timeout: connectTimeoutMs,
    reconnect: true,
    maxReconnectAttempts: -1,
    // The least time between two dials of one server. nats.js asks at every turn of its redial
    // loop (a dial, or a wait), so the spacing grows to its cap within a few dials; it starts
    // again from the shortest with every new connection.
    reconnectDelayHandler: () => connectSpacing(pacing.dials++),
    pingInterval: PING_INTERVAL_MS,
    maxPingOut: 2,
    noEcho: true,
    // The Node transport hands these to `tls.connect` as they are (Node's own TLS options).
    ...(tls !== undefined && { tls: tls as NatsConnectionOptions['tls'] }),
    ...(username !== undefined && { user: username }),
    ...(password !== undefined && { pass: password }),
    ...(token !== undefined && { token }),
  };
}
