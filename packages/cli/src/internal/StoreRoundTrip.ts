import {
  realClock,
  type Clock,
  type CompareAndSetOptions,
  type CompareAndSetResult,
  type KV,
  type KVCapabilities,
  type KVOperationOptions,
  type SetOptions,
} from '@roster/kv-adapter';

/**
 * The store round trip a node sees: a moving average (weight 1/8) of how long each of its store
 * operations took, from the call to the answer, over the operations that succeeded. It is what
 * the status page shows as the node's latency: unlike the PING→PONG interval (about I by
 * construction), it moves when the store or the network to it is slow.
 *
 * @example
 * ```ts
 * const roundTrip = new StoreRoundTrip();
 * const node = createNode({ kv: roundTrip.wrap(kv), cluster: 'jobs', env: 'prod' });
 * roundTrip.ms; // e.g. 0.42, or undefined before the first answer
 * ```
 */
export class StoreRoundTrip {
  readonly #clock: Clock;
  #ewma: number | undefined;

  constructor(clock: Clock = realClock) {
    this.#clock = clock;
  }

  /** The moving average in ms, or `undefined` before the first successful operation. */
  get ms(): number | undefined {
    return this.#ewma;
  }

  /** Adds one operation's duration. */
  record(ms: number): void {
    this.#ewma = this.#ewma === undefined ? ms : this.#ewma + (ms - this.#ewma) / 8;
  }

  /** `kv`, with every operation timed into this average; values and errors pass through unchanged. */
  wrap(kv: KV): KV {
    return new TimedKV(kv, this, this.#clock);
  }
}

class TimedKV implements KV {
  readonly name: string;
  readonly capabilities: KVCapabilities;
  readonly #inner: KV;
  readonly #sink: StoreRoundTrip;
  readonly #clock: Clock;

  constructor(inner: KV, sink: StoreRoundTrip, clock: Clock) {
    this.#inner = inner;
    this.#sink = sink;
    this.#clock = clock;
    this.name = inner.name;
    this.capabilities = inner.capabilities;
  }

  async #timed<T>(operation: () => Promise<T>): Promise<T> {
    const startedAt = this.#clock.now();
    const result = await operation();
    this.#sink.record(this.#clock.now() - startedAt);
    return result;
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#timed(() => this.#inner.get(key, options));
  }
  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#timed(() => this.#inner.set(key, value, options));
  }
  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#timed(() => this.#inner.delete(key, options));
  }
  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#timed(() => this.#inner.append(key, value, options));
  }
  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#timed(() => this.#inner.take(key, options));
  }
  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#timed(() => this.#inner.getRange(key, start, end, options));
  }
  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#timed(() => this.#inner.exchange(key, value, options));
  }
  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#timed(() => this.#inner.compareAndSet(key, expected, value, options));
  }
  time(options?: KVOperationOptions): Promise<number> {
    return this.#timed(() => this.#inner.time(options));
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}
