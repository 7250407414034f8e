import { abortReason } from './clock/Clock.js';
import type { Clock } from './clock/Clock.js';
import { realClock } from './clock/RealClock.js';
import { ConfigError, KVClosedError } from './errors.js';
import type {
  CompareAndSetOptions,
  CompareAndSetResult,
  KV,
  KVCapabilities,
  KVLimits,
  KVOperationOptions,
  SetOptions,
} from './KV.js';
import { checkKey, checkRange, checkValue, resolveLimits, type Limits } from './validate.js';

/** Options of {@link MemoryKV}. */
export interface MemoryKVOptions extends KVLimits {
  /** Clock for key expiry and for {@link MemoryKV.time}. @defaultValue the real clock */
  readonly clock?: Clock;
}

interface Slot {
  value: string;
  expiresAt: number | undefined;
}

/**
 * The embedded default store: in-process, with the semantics of Redis for every operation of
 * {@link KV} (append, `GETDEL`-style take, `GETRANGE`, `SET … GET` exchange, compare-and-set, `TIME`). Every operation is atomic
 * and resolves on the next microtask, so it runs deterministically on a virtual clock.
 *
 * It is a real backend, not a mock: use it for single-process deployments, the demo and tests.
 * Wrap it in `@roster/testing`'s fault injection to make it misbehave.
 *
 * @example
 * ```ts
 * const kv = new MemoryKV();
 * await kv.append('join 0', ' node1');
 * await kv.take('join 0'); // ' node1'
 * ```
 */
export class MemoryKV implements KV {
  readonly name = 'MemoryKV';
  readonly capabilities: KVCapabilities = Object.freeze({ compareAndSet: true, time: true, comparePrefix: true });
  readonly #data = new Map<string, Slot>();
  readonly #clock: Clock;
  readonly #limits: Limits;
  #closed = false;

  constructor(options: MemoryKVOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#limits = resolveLimits(options);
    for (const field of ['maxKeyBytes', 'maxValueBytes'] as const) {
      const v = this.#limits[field];
      if (!Number.isInteger(v) || v <= 0) throw new ConfigError(field, v, `Expected \`${field}\` to be a positive integer`);
    }
  }

  async get(key: string, options?: KVOperationOptions): Promise<string | null> {
    this.#enter(key, options);
    return this.#read(key);
  }

  async set(key: string, value: string, options?: SetOptions): Promise<void> {
    this.#enter(key, options);
    checkValue(key, value, this.#limits);
    this.#write(key, value, options?.ttlMs);
  }

  async delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    this.#enter(key, options);
    const existed = this.#read(key) !== null;
    this.#data.delete(key);
    return existed;
  }

  async append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    this.#enter(key, options);
    checkValue(key, value, this.#limits);
    const slot = this.#slot(key);
    const next = (slot?.value ?? '') + value;
    checkValue(key, next, this.#limits);
    if (slot) slot.value = next;
    else this.#data.set(key, { value: next, expiresAt: undefined });
    return Buffer.byteLength(next);
  }

  async take(key: string, options?: KVOperationOptions): Promise<string | null> {
    this.#enter(key, options);
    const value = this.#read(key);
    this.#data.delete(key);
    return value;
  }

  async getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    this.#enter(key, options);
    checkRange(start, end);
    const value = this.#read(key);
    if (value === null) return '';
    const bytes = Buffer.from(value);
    const from = start < 0 ? Math.max(0, bytes.length + start) : start;
    const to = Math.min(bytes.length - 1, end < 0 ? bytes.length + end : end);
    return from > to ? '' : bytes.subarray(from, to + 1).toString();
  }

  async exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    this.#enter(key, options);
    checkValue(key, value, this.#limits);
    const previous = this.#read(key);
    this.#write(key, value, undefined);
    return previous;
  }

  async compareAndSet(
    key: string,
    expected: string | null,
    value: string,
    options?: CompareAndSetOptions,
  ): Promise<CompareAndSetResult> {
    this.#enter(key, options);
    if (typeof value !== 'string') checkValue(key, value, this.#limits); // throws InvalidValueError
    const token = options?.stampToken ?? '';
    if (typeof token !== 'string') throw new ConfigError('stampToken', token, 'Expected `stampToken` to be a string');
    const time = this.#clock.wallTime();
    const next = token ? value.split(token).join(String(time)) : value;
    checkValue(key, next, this.#limits);
    const current = this.#read(key);
    const matches = expected === null || current === null || !options?.prefix ? current === expected : current.startsWith(expected);
    if (!matches) return { swapped: false, current, time };
    this.#write(key, next, options?.ttlMs);
    return { swapped: true, current: next, time };
  }

  async time(options?: KVOperationOptions): Promise<number> {
    this.#checkOpen(options);
    return this.#clock.wallTime();
  }

  /** Drops every key, as a Redis server restarted without persistence would. */
  flushAll(): void {
    this.#data.clear();
  }

  /** The live keys, for inspection in tests and tools. */
  keys(): string[] {
    return [...this.#data.keys()].filter((k) => this.#slot(k) !== undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #checkOpen(options: KVOperationOptions | undefined): void {
    if (this.#closed) throw new KVClosedError(this.name);
    if (options?.signal?.aborted) throw abortReason(options.signal);
  }

  #enter(key: string, options: KVOperationOptions | undefined): void {
    this.#checkOpen(options);
    checkKey(key, this.#limits);
  }

  #slot(key: string): Slot | undefined {
    const slot = this.#data.get(key);
    if (slot?.expiresAt !== undefined && this.#clock.now() >= slot.expiresAt) {
      this.#data.delete(key);
      return undefined;
    }
    return slot;
  }

  #read(key: string): string | null {
    return this.#slot(key)?.value ?? null;
  }

  #write(key: string, value: string, ttlMs: number | undefined): void {
    if (ttlMs !== undefined && (!Number.isFinite(ttlMs) || ttlMs <= 0)) {
      throw new ConfigError('ttlMs', ttlMs, 'Expected `ttlMs` to be a positive number');
    }
    this.#data.set(key, { value, expiresAt: ttlMs === undefined ? undefined : this.#clock.now() + ttlMs });
  }
}
