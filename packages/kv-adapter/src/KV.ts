/**
 * The one storage interface every Roster package speaks.
 *
 * Keys and values are strings. Every operation may reject with a typed error:
 * {@link KeyUnavailableError} (this key cannot be served now: move to another key),
 * {@link StoreUnavailableError} (the store cannot be reached: retry later), or one of the
 * input errors ({@link InvalidKeyError}, {@link InvalidValueError}, {@link ValueTooLargeError}).
 *
 * @packageDocumentation
 */

/** Optional capabilities a backend declares. */
export interface KVCapabilities {
  /** {@link KV.compareAndSet} is atomic on this backend. */
  readonly compareAndSet: boolean;
  /** {@link KV.time} reads the store's own clock. */
  readonly time: boolean;
  /**
   * {@link KV.compareAndSet} takes {@link CompareAndSetOptions.prefix}. A backend that does not
   * declare it (or declares it false) is never given that option. @defaultValue false
   */
  readonly comparePrefix?: boolean;
}

/** Options every operation accepts. */
export interface KVOperationOptions {
  /** Abandons the wait for the operation (the store may still apply it). */
  readonly signal?: AbortSignal;
  /**
   * Serve this operation before the others of this client that wait for a connection of its pool
   * (the database stores, etcd): a leader's lease renewal goes before its PONG round and the
   * other members' PINGs. Stores whose client does not queue (Redis, NATS, memory) ignore it.
   */
  readonly urgent?: boolean;
}

/** Options of {@link KV.set}. */
export interface SetOptions extends KVOperationOptions {
  /** Expire the key after this many milliseconds (store time). */
  readonly ttlMs?: number;
}

/** Options of {@link KV.compareAndSet}. */
export interface CompareAndSetOptions extends SetOptions {
  /**
   * When set, every occurrence of this literal token in the new value is replaced by the store's
   * current time (ms since the epoch), read in the same atomic step as the comparison and the
   * write. Requires the `time` capability.
   */
  readonly stampToken?: string;
  /**
   * Compare the start only: the value is replaced when the stored value begins with `expected`
   * (`null` still means "absent"). A writer that knows a long value by a unique prefix (a
   * broadcast by its header) replaces it without sending it back to the store. Give it only to
   * backends that declare `capabilities.comparePrefix` (one that does not would compare the whole
   * value and never match). @defaultValue false
   */
  readonly prefix?: boolean;
}

/** The outcome of {@link KV.compareAndSet}. */
export interface CompareAndSetResult {
  /** True when the value matched `expected` and was replaced. */
  readonly swapped: boolean;
  /** The value stored after the operation (the new value when swapped, the unchanged one otherwise). */
  readonly current: string | null;
  /** The store's time at the operation (ms since the epoch), when the backend has a clock. */
  readonly time?: number;
}

/**
 * A key-value store as Roster uses it. Implementations: `MemoryKV` (embedded), `RedisKV` (Redis,
 * Redis Cluster, Sentinel), `PostgresKV`, `MySQLKV` (MySQL, MariaDB), `EtcdKV`, `NatsKV` (a NATS JetStream
 * key-value bucket); and, for tests, the fault-injecting view of
 * any KV in `@roster/testing`.
 *
 * No operation spans more than one key, so every key may live on a different shard.
 */
export interface KV {
  /** A short name for errors and logs, e.g. `"MemoryKV"`. */
  readonly name: string;
  /** Which optional operations this backend supports. */
  readonly capabilities: KVCapabilities;
  /** The value at `key`, or `null` when there is none. */
  get(key: string, options?: KVOperationOptions): Promise<string | null>;
  /** Stores `value` at `key`, replacing any value. */
  set(key: string, value: string, options?: SetOptions): Promise<void>;
  /** Removes `key`; true when it existed. */
  delete(key: string, options?: KVOperationOptions): Promise<boolean>;
  /**
   * Atomically appends `value` to the string at `key` (creating it when absent) and returns the
   * new length in UTF-8 bytes. Concurrent appends never lose one another.
   */
  append(key: string, value: string, options?: KVOperationOptions): Promise<number>;
  /**
   * Atomically reads and deletes `key` (Redis `GETDEL`): a value appended concurrently is
   * either in the returned value or still in the store afterwards, never lost.
   */
  take(key: string, options?: KVOperationOptions): Promise<string | null>;
  /**
   * The bytes `start` to `end` (both inclusive, 0-based, in UTF-8 bytes) of the value at `key`
   * (Redis `GETRANGE`): negative offsets count from the end (`-1` is the last byte), offsets past
   * the end are clipped, and an absent key or an empty range reads as `""`. It reads a value's
   * head without transferring the rest (Roster reads the broadcast's `Era Nonce Version Id`
   * header this way). A range that cuts a multi-byte character decodes it as U+FFFD.
   */
  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string>;
  /**
   * Atomically stores `value` at `key` and returns the value it replaced, `null` when there was
   * none (Redis `SET key value GET`, 6.2+). One command does a write and the read of what the
   * write replaced, so no write by someone else can fall between them.
   */
  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null>;
  /**
   * Atomically replaces the value at `key` with `value` when it currently equals `expected`
   * (`null` meaning "absent"), or, with `options.prefix`, begins with it. Rejects with
   * `UnsupportedOperationError` unless `capabilities.compareAndSet`.
   */
  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult>;
  /**
   * The store's own clock in ms since the epoch (Redis `TIME`). Rejects with
   * `UnsupportedOperationError` unless `capabilities.time`.
   */
  time(options?: KVOperationOptions): Promise<number>;
  /** Releases the backend's resources; later operations reject with `KVClosedError`. Idempotent. */
  close(): Promise<void>;
}

/** Limits every backend enforces on keys and values. */
export interface KVLimits {
  /** Longest key accepted, in UTF-8 bytes. @defaultValue 1024 */
  readonly maxKeyBytes?: number;
  /** Largest value accepted on write or returned on read, in UTF-8 bytes. @defaultValue 1 MiB */
  readonly maxValueBytes?: number;
}

/** The default {@link KVLimits}. */
export const DEFAULT_LIMITS: Required<KVLimits> = Object.freeze({ maxKeyBytes: 1024, maxValueBytes: 1024 * 1024 });
