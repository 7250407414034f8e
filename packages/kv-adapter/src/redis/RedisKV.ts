import type { ConnectionOptions } from 'node:tls';
import type { Cluster, Redis } from 'ioredis';
import { abortReason, type Clock } from '../clock/Clock.js';
import {
  ConfigError,
  InvalidValueError,
  KeyUnavailableError,
  KVClosedError,
  RosterError,
  StoreUnavailableError,
  ValueTooLargeError,
} from '../errors.js';
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
import { guardAsking } from './guardAsking.js';
import { isRedirection, mapRedisError } from './mapError.js';
import { CLUSTER_MAX_REDIRECTIONS } from './createClient.js';
import { raceSignal } from '../util/deadline.js';
import { resolveSettings, type Settings } from './resolveSettings.js';
import { runScript } from './runScript.js';
import { isNodeFailure, ShardHealth } from './ShardHealth.js';
import { APPEND_WITHIN_LIMIT, COMPARE_AND_SET, READ_WITHIN_LIMIT } from './scripts.js';
import { clusterTime, parseTime } from './time.js';
import { waitUntilReady } from './waitUntilReady.js';
import { checkKey, checkRange, checkSize, checkValue } from '../validate.js';

/**
 * Options of {@link RedisKV.connect}. Give exactly one of `url` and `client`.
 */
export interface RedisKVOptions extends KVLimits {
  /**
   * Where the store is (see {@link parseStoreUrl}):
   * - `redis://[user:pass@]host[:port][/db]`: one Redis server;
   * - `rediss://…`: the same over TLS;
   * - `host:port,host:port,…` or `redis://host:port,redis://host:port,…`: seed nodes of a
   *   Redis Cluster (the servers should run with `cluster-require-full-coverage no`, or one dead
   *   shard takes every key down);
   * - `redis+sentinel://[user:pass@]host:port[,host:port…]/MASTER_NAME[/db][?sentinelUsername=…&sentinelPassword=…]`:
   *   the master of a Redis Sentinel deployment, asked of the sentinels at every reconnection and
   *   followed through failovers (`rediss+sentinel://` for TLS to the sentinels and the master);
   *   the user info is the master's credentials, the query the sentinels' own.
   */
  readonly url?: string;
  /**
   * An ioredis client to use instead of `url`. RedisKV neither reconfigures nor closes it: its
   * timeouts and offline queue are the caller's (see the README for fail-fast settings). A
   * `Cluster` client's node connections get a handler on the `ASKING` ioredis sends when it
   * follows an `ASK` (ioredis leaves that promise unhandled, and its rejection would end the
   * process); nothing else of it changes.
   */
  readonly client?: Redis | Cluster;
  /** Treat a `url` with a single address as the seed of a Redis Cluster. @defaultValue false */
  readonly cluster?: boolean;
  /** ACL user name; overrides the URL's. */
  readonly username?: string;
  /** Password; overrides the URL's. */
  readonly password?: string;
  /** Sentinel mode: the ACL user of the sentinels; overrides the URL's `?sentinelUsername=`. */
  readonly sentinelUsername?: string;
  /** Sentinel mode: the password of the sentinels; overrides the URL's `?sentinelPassword=`. */
  readonly sentinelPassword?: string;
  /**
   * TLS: `true` or Node.js TLS options to use TLS, `false` not to; overrides the URL's scheme.
   * @defaultValue true for `rediss://`, false for `redis://`
   */
  readonly tls?: boolean | ConnectionOptions;
  /** How long {@link RedisKV.connect} waits for the store to be ready. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one command may take before it fails (ioredis `commandTimeout`); also bounds
   * {@link RedisKV.close}'s graceful `QUIT`. @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /** Receives connection events (ready, lost, errors). @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock of the connect and close deadlines. @defaultValue the real clock */
  readonly clock?: Clock;
}

/** A second switch of master this soon after a logged one belongs to the same failover. */
const SWITCH_QUIET_MS = 30_000;

/** Options of the connection attempt of {@link RedisKV.connect}. */
export interface RedisKVConnectOptions {
  /** Abandons the connection attempt; `connect` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * A {@link KV} on Redis or Redis Cluster, through ioredis 5.
 *
 * **Every operation touches one key**, with single-key commands or single-key Lua scripts, and no
 * hash tags: each key (each nonce of a compound key) may live on a different shard, which is what
 * lets a writer move away from a dead shard.
 *
 * **Fail fast, never hang.** There is no offline queue once connected: an operation on a store
 * that is down or reconnecting rejects at once, a command on a hung server fails after
 * `commandTimeoutMs`, and a command in flight when the connection drops fails instead of being
 * resent (so an append is never applied twice by a resend).
 *
 * **Redis Sentinel.** With a `redis+sentinel://` URL the client asks the sentinels for the master
 * at every (re)connection, drops its connection when a sentinel announces `+switch-master` or the
 * master answers `READONLY` (it was demoted), and reconnects to the new master; it logs
 * `redis: master switched` once per failover. Replication is asynchronous: the last writes
 * acknowledged by a master that dies may be missing on the replica promoted in its place.
 * `NOREPLICAS` (the master's `min-replicas-to-write` is not met) is unavailability.
 *
 * **Errors.** A key whose shard is down (cluster mode: `CLUSTERDOWN`, a lost, refused or timed-out
 * connection to that shard) → `KeyUnavailableError`; the whole store unreachable (a single Redis
 * down, the cluster client not ready) → `StoreUnavailableError`; an error reply such as
 * `WRONGTYPE` or `OOM` → `KVRejectedError`; values read or written over `maxValueBytes` →
 * `ValueTooLargeError`; after {@link RedisKV.close} → `KVClosedError`.
 *
 * **Operations.** `get` a script that checks `STRLEN` against `maxValueBytes` and then GETs (so a
 * value over the limit never leaves the server), `set` SET [PX], `delete` DEL, `append` a script
 * that APPENDs only when the result stays within `maxValueBytes`, `take` the same read script with
 * GETDEL (Redis 6.2+; a value over the limit is DELeted all the same), `getRange` GETRANGE,
 * `exchange` SET … GET (Redis 6.2+; one command, so the value it replaces is read before its size
 * is checked: an oversized value costs one transient read, then it is gone), `compareAndSet` a
 * script that reads `TIME`, stamps it into the value, compares and writes in one step, `time` TIME.
 *
 * @example
 * ```ts
 * const kv = await RedisKV.connect({ url: 'redis://127.0.0.1:6379' });
 * try {
 *   await kv.append('roster/app/prod/join 0', ' node7');
 *   console.log(await kv.take('roster/app/prod/join 0')); // ' node7'
 * } finally {
 *   await kv.close();
 * }
 * ```
 */
export class RedisKV implements KV {
  readonly name = 'RedisKV';
  readonly capabilities: KVCapabilities = Object.freeze({ compareAndSet: true, time: true, comparePrefix: true });
  /** `"cluster"` on Redis Cluster, `"sentinel"` on a master found through Redis Sentinel, `"single"` on one Redis server. */
  readonly mode: 'single' | 'cluster' | 'sentinel';
  readonly #client: Redis | Cluster;
  readonly #settings: Settings;
  readonly #detach: (() => void)[] = [];
  /** Cluster mode: which masters are down, to fail their keys fast (see {@link ShardHealth}). */
  readonly #health: ShardHealth | undefined;
  #connected = false;
  /** Whether the client was ever ready: node errors before that are the connection's verdict, not a shard's health. */
  #wasReady = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Cluster mode: redirections followed by RedisKV itself (see {@link redirections}). */
  #redirections = 0;
  /** Sentinel mode: the master of the last `ready`, as `host:port`. */
  #master: string | undefined;
  /** Sentinel mode: when (the clock's `now()`) a switch of master was last logged as a warning. */
  #switchLoggedAt = Number.NEGATIVE_INFINITY;
  /** Sentinel mode: the pending restart of a client that ioredis ended. */
  #restart: { cancel(): void } | undefined;
  /** Sentinel mode: whether the current run of restarts was already logged as a warning. */
  #restartLogged = false;

  private constructor(settings: Settings) {
    this.#settings = settings;
    this.#client = settings.client;
    this.mode = settings.mode;
    if (this.mode === 'cluster') {
      const cluster = settings.client as Cluster;
      // A caller's client too: an unhandled ASKING rejection would end the caller's process.
      guardAsking(cluster);
      this.#health = new ShardHealth({
        clock: settings.clock,
        logger: settings.logger,
        store: settings.target,
        slots: () => (cluster as unknown as { slots: readonly (readonly string[] | undefined)[] }).slots,
      });
    }
    this.#listen();
  }

  /**
   * Connects to the store and resolves once it is ready for commands.
   *
   * @throws {@link ConfigError} for bad options (a bad URL: field `store`).
   * @throws {@link StoreUnavailableError} when the store is not ready within `connectTimeoutMs`
   *   (its `cause` is the last connection error).
   *
   * @example
   * ```ts
   * const kv = await RedisKV.connect(
   *   { url: 'rediss://app:s3cret@redis.internal:6380/0', connectTimeoutMs: 2000 },
   *   { signal: AbortSignal.timeout(10_000) },
   * );
   * ```
   */
  static async connect(options: RedisKVOptions, { signal }: RedisKVConnectOptions = {}): Promise<RedisKV> {
    const settings = resolveSettings(options);
    const kv = new RedisKV(settings);
    try {
      await waitUntilReady(settings.client, {
        timeoutMs: settings.connectTimeoutMs,
        clock: settings.clock,
        target: settings.target,
        // Sentinel mode: a client ioredis ends while it connects is started again (see #listen).
        endIsFinal: !(settings.owned && settings.mode === 'sentinel'),
        ...(signal && { signal }),
      });
    } catch (error) {
      await kv.#destroy();
      throw error;
    }
    // From here on, a command on a disconnected client fails at once instead of queueing.
    if (settings.owned) settings.client.options.enableOfflineQueue = false;
    return kv;
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('get', key, options, async (client) => this.#readCapped(client, key, false));
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#op('set', key, options, async (client) => {
      checkValue(key, value, this.#settings.limits);
      const ttl = ttlArgument(options?.ttlMs);
      if (ttl === undefined) await client.set(key, value);
      else await client.set(key, value, 'PX', ttl);
    });
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#op('delete', key, options, async (client) => (await client.del(key)) > 0);
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#op('append', key, options, async (client) => {
      const { limits } = this.#settings;
      checkValue(key, value, limits);
      const length = Number(await runScript(client, APPEND_WITHIN_LIMIT, key, [value, limits.maxValueBytes]));
      if (length < 0) throw new ValueTooLargeError(key, -length, limits.maxValueBytes);
      return length;
    });
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    // A value over the limit is taken (deleted) all the same, then reported as too large.
    return this.#op('take', key, options, async (client) => this.#readCapped(client, key, true));
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#op('getRange', key, options, async (client) => {
      checkRange(start, end);
      return this.#checkRead(key, await client.getrange(key, start, end)) ?? '';
    });
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('exchange', key, options, async (client) => {
      checkValue(key, value, this.#settings.limits);
      // The write stays applied even when the value it replaced is reported as too large.
      return this.#checkRead(key, await client.set(key, value, 'GET'));
    });
  }

  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#op('compareAndSet', key, options, async (client) => {
      const { limits } = this.#settings;
      checkValue(key, value, limits);
      if (expected !== null && typeof expected !== 'string') {
        throw new InvalidValueError(key, `expected \`expected\` to be a string or null, got ${typeof expected}`);
      }
      const token = options?.stampToken ?? '';
      if (typeof token !== 'string') throw new ConfigError('stampToken', token, 'Expected `stampToken` to be a string');
      const ttl = ttlArgument(options?.ttlMs);
      const reply = (await runScript(client, COMPARE_AND_SET, key, [
        expected === null ? '0' : options?.prefix ? '2' : '1',
        expected ?? '',
        value,
        ttl ?? '',
        token,
        limits.maxValueBytes,
      ])) as [number, string, (string | number | null)?];
      const [outcome, now, current] = reply;
      if (outcome < 0) throw new ValueTooLargeError(key, Number(current), limits.maxValueBytes);
      // A swap without a stamp does not send the value back: it is the one we sent.
      if (outcome === 1 && token === '') return { swapped: true, current: value, time: Number(now) };
      const stored = this.#checkRead(key, current === null || current === undefined ? null : String(current));
      return { swapped: outcome === 1, current: stored, time: Number(now) };
    });
  }

  time(options?: KVOperationOptions): Promise<number> {
    return this.#op('time', undefined, options, async (client) =>
      this.mode === 'cluster' ? clusterTime(client as Cluster) : parseTime(await client.time()),
    );
  }

  /**
   * Closes the connection: a graceful `QUIT`, then a hard disconnect when it takes longer than
   * `commandTimeoutMs`. A client passed in `options.client` is left open. Operations still in
   * flight and every later one reject with `KVClosedError`. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#destroy();
    return this.#closing;
  }

  /** Calls {@link RedisKV.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #destroy(): Promise<void> {
    this.#closed = true;
    this.#restart?.cancel();
    const { client, owned, clock, commandTimeoutMs } = this.#settings;
    if (!owned) {
      for (const detach of this.#detach.splice(0)) detach();
      return;
    }
    // The 'error' listener stays: ioredis prints unhandled 'error' events to the console.
    let timer: { cancel(): void } | undefined;
    try {
      await Promise.race([
        client.quit(),
        new Promise<void>((resolve) => {
          timer = clock.setTimer(resolve, commandTimeoutMs);
        }),
      ]);
    } catch {
      // Not connected: nothing to say goodbye to.
    } finally {
      timer?.cancel();
      client.disconnect();
    }
  }

  #op<T>(
    operation: string,
    key: string | undefined,
    options: KVOperationOptions | undefined,
    run: (client: Redis | Cluster) => Promise<T>,
  ): Promise<T> {
    if (this.#closed) return Promise.reject(new KVClosedError(this.name));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const work = (async (): Promise<T> => {
      if (key !== undefined) checkKey(key, this.#settings.limits);
      const admission = key === undefined ? undefined : this.#health?.admit(key);
      if (admission && admission.verdict !== 'send') {
        if (admission.probe) this.#probe(key!, admission.node);
        const reason = `${operation}: cluster node ${admission.node} is down`;
        if (admission.verdict === 'store-down') throw new StoreUnavailableError(reason);
        throw new KeyUnavailableError(key!, { reason });
      }
      const node = admission?.node;
      try {
        const result = await this.#followingRedirections(run, signal);
        this.#health?.succeeded(node);
        return result;
      } catch (error) {
        if (this.#health && !this.#closed && !RosterError.is(error) && isNodeFailure(error)) this.#health.failed(node, error);
        else this.#health?.released(node);
        throw mapRedisError(error, {
          backend: this.name,
          operation,
          key,
          closed: this.#closed,
          shardScoped: this.mode === 'cluster' && this.#client.status === 'ready' && !this.#health?.allDown,
        });
      }
    })();
    return raceSignal(work, signal);
  }

  /**
   * Runs `run`; in cluster mode, a redirection that reached us (`MOVED`, `ASK`: see
   * `isRedirection`) refreshes the slot table and runs it again, up to
   * {@link CLUSTER_MAX_REDIRECTIONS} times. A redirected command was not run, so sending it again
   * never applies it twice. Each attempt has the command timeout; the refresh waits at most as
   * long. Only a redirection that persists past the retries reaches {@link mapRedisError}.
   */
  async #followingRedirections<T>(run: (client: Redis | Cluster) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run(this.#client);
      } catch (error) {
        if (this.mode !== 'cluster' || !isRedirection(error) || attempt >= CLUSTER_MAX_REDIRECTIONS || this.#closed || signal?.aborted) throw error;
        this.#redirections++;
        await this.#refreshSlots();
      }
    }
  }

  /** Asks the cluster for its slot table now; resolves when it has it, or after the command timeout. Never rejects. */
  #refreshSlots(): Promise<void> {
    const { clock, commandTimeoutMs } = this.#settings;
    return new Promise<void>((resolve) => {
      const timer = clock.setTimer(resolve, commandTimeoutMs);
      (this.#client as Cluster).refreshSlotsCache(() => {
        timer.cancel();
        resolve();
      });
    });
  }

  /**
   * Cluster mode: how many redirections (`MOVED`, `ASK`) reached RedisKV and were followed by a
   * slot refresh and a new attempt. Zero with RedisKV's own client, which ioredis redirects
   * command by command; a caller-supplied client with autopipelining meets them after failovers.
   */
  get redirections(): number {
    return this.#redirections;
  }

  /**
   * Tests a cluster node marked down, in the background, with the read every reader makes (the
   * capped GET script, which sends no value back when it is large): a reply marks the node up; a
   * failed or timed-out connection backs the next probe off; an error reply tells nothing (it may
   * come from another node: `CLUSTERDOWN Hash slot not served`). Never rejects.
   */
  #probe(key: string, node: string): void {
    const health = this.#health!;
    const { maxValueBytes } = this.#settings.limits;
    runScript(this.#client, READ_WITHIN_LIMIT, key, [maxValueBytes, '0']).then(
      () => health.succeeded(node),
      (error: unknown) => {
        if (!this.#closed && isNodeFailure(error)) health.failed(node, error);
        else health.released(node);
      },
    );
  }

  /** GET (or GETDEL) that checks `STRLEN` on the server first: an oversized value is never sent. */
  async #readCapped(client: Redis | Cluster, key: string, del: boolean): Promise<string | null> {
    const { maxValueBytes } = this.#settings.limits;
    const reply = (await runScript(client, READ_WITHIN_LIMIT, key, [maxValueBytes, del ? '1' : '0'])) as string | number | null;
    if (typeof reply === 'number') throw new ValueTooLargeError(key, -reply, maxValueBytes);
    return reply;
  }

  #checkRead(key: string, value: string | null): string | null {
    if (value !== null) checkSize(key, value, this.#settings.limits);
    return value;
  }

  #listen(): void {
    const { client, logger, target } = this.#settings;
    const on = (event: string, listener: (...args: any[]) => void): void => {
      client.on(event, listener);
      this.#detach.push(() => client.off(event, listener));
    };
    on('ready', () => {
      this.#connected = true;
      this.#wasReady = true;
      this.#restartLogged = false;
      logger.info({ store: target, mode: this.mode }, 'redis: ready');
      if (this.mode === 'sentinel') this.#noteMaster();
    });
    on('error', (error: Error) => {
      // Reconnection attempts repeat the same error: only the first after a loss is a warning.
      const level = this.#connected ? 'warn' : 'debug';
      logger[level]({ store: target, error: error.message }, 'redis: connection error');
    });
    on('close', () => {
      if (!this.#connected || this.#closed) return;
      this.#connected = false;
      logger.warn({ store: target }, 'redis: connection lost');
    });
    on('reconnecting', (delayMs: number) => logger.debug({ store: target, delayMs }, 'redis: reconnecting'));
    on('end', () => {
      if (this.#closed) return;
      if (this.mode === 'sentinel' && this.#settings.owned) this.#restartEnded();
      else logger.warn({ store: target }, 'redis: the client gave up reconnecting');
    });
    if (this.mode === 'cluster') {
      on('node error', (error: Error, node: string) => {
        logger.debug({ store: target, node, error: error.message }, 'redis: cluster node error');
        // Before the first `ready` there is no slot table to fail keys by, and `connect` decides.
        if (this.#wasReady) this.#health?.failed(node, error);
      });
      on('-node', (_redis: Redis, node: string) => logger.debug({ store: target, node }, 'redis: cluster node removed'));
      on('+node', (_redis: Redis, node: string) => logger.debug({ store: target, node }, 'redis: cluster node added'));
    }
  }

  /**
   * Sentinel mode: logs `redis: master switched` when a `ready` finds another master than the
   * last one, once per failover: the operations in between fail without a log line, and a second
   * switch within {@link SWITCH_QUIET_MS} of the first (the client passing through another server
   * while the sentinels settle) is logged at debug only.
   */
  #noteMaster(): void {
    const stream = (this.#client as unknown as { stream?: { remoteAddress?: string; remotePort?: number } }).stream;
    if (stream?.remoteAddress === undefined) return;
    const master = `${stream.remoteAddress}:${stream.remotePort}`;
    if (this.#master !== undefined && this.#master !== master) {
      const { clock, logger, target } = this.#settings;
      const now = clock.now();
      if (now - this.#switchLoggedAt >= SWITCH_QUIET_MS) {
        this.#switchLoggedAt = now;
        logger.warn({ store: target, from: this.#master, to: master }, 'redis: master switched');
      } else {
        logger.debug({ store: target, from: this.#master, to: master }, 'redis: master switched again during the failover');
      }
    }
    this.#master = master;
  }

  /**
   * Sentinel mode: ioredis ends a client for good when its Sentinel connector rejects, which
   * happens when a failover is announced (`+switch-master`) while the connector is asking a
   * sentinel for the master. Nothing would ever connect it again, so RedisKV starts it again
   * after a short delay; the sentinels then name the new master.
   */
  #restartEnded(): void {
    const { client, clock, logger, target, commandTimeoutMs } = this.#settings;
    const level = this.#restartLogged ? 'debug' : 'warn';
    this.#restartLogged = true;
    logger[level]({ store: target }, 'redis: the client ended while a failover was announced; connecting again');
    this.#restart?.cancel();
    this.#restart = clock.setTimer(() => {
      this.#restart = undefined;
      if (this.#closed || client.status !== 'end') return;
      // A rejection ends the client again, and 'end' brings us back here.
      client.connect().catch(() => {});
    }, Math.min(100, commandTimeoutMs));
  }
}

/** A TTL as Redis `PX` wants it: a positive integer, rounded up. */
function ttlArgument(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new ConfigError('ttlMs', ttlMs, 'Expected `ttlMs` to be a positive number');
  }
  return Math.ceil(ttlMs);
}
