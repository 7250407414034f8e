import { StoreUnavailableError, type Clock, type CompareAndSetOptions, type CompareAndSetResult, type KV, type KVOperationOptions, type SetOptions } from '@roster/kv-adapter';
import { abortReason } from '@roster/kv-adapter/internal';

/** A small deterministic PRNG (mulberry32): the same seed gives the same draws. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One node's view of a shared store, with a delay on the way to the store and another on the way
 * back (each drawn uniformly from [0, maxDelayMs] on the clock), and an outage switch. The inner
 * store applies each operation at one instant; an operation abandoned through its signal before
 * it reached the store is not applied, one abandoned on the way back was.
 */
export class DelayedKV implements KV {
  readonly name: string;
  /** While true, every operation fails with `StoreUnavailableError` (after its first delay). */
  down = false;
  /** Operations applied, by kind; for the tests' own sanity checks. */
  readonly applied = new Map<string, number>();

  constructor(
    readonly inner: KV,
    readonly clock: Clock,
    readonly maxDelayMs: number,
    readonly random: () => number,
  ) {
    this.name = `Delayed(${inner.name})`;
  }

  get capabilities(): KV['capabilities'] {
    return this.inner.capabilities;
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('get', options, () => this.inner.get(key));
  }
  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#op('set', options, () => this.inner.set(key, value, { ...options, signal: undefined }));
  }
  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#op('delete', options, () => this.inner.delete(key));
  }
  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#op('append', options, () => this.inner.append(key, value));
  }
  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('take', options, () => this.inner.take(key));
  }
  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#op('getRange', options, () => this.inner.getRange(key, start, end));
  }
  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('exchange', options, () => this.inner.exchange(key, value));
  }
  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#op('compareAndSet', options, () => this.inner.compareAndSet(key, expected, value, { ...options, signal: undefined }));
  }
  time(options?: KVOperationOptions): Promise<number> {
    return this.#op('time', options, () => this.inner.time());
  }
  async close(): Promise<void> {}

  async #op<T>(name: string, options: KVOperationOptions | undefined, apply: () => Promise<T>): Promise<T> {
    const signal = options?.signal;
    await this.#wait(this.random() * this.maxDelayMs, signal);
    if (this.down) throw new StoreUnavailableError('outage injected by the test');
    const result = await apply();
    this.applied.set(name, (this.applied.get(name) ?? 0) + 1);
    await this.#wait(this.random() * this.maxDelayMs, signal);
    return result;
  }

  #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        timer.cancel();
        reject(abortReason(signal!));
      };
      const timer = this.clock.setTimer(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
