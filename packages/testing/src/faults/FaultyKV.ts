import { KVClosedError, RosterError, StoreUnavailableError, type Clock } from '@roster/kv-adapter';
import { deadline, raceSignal, sleep, type LifoGate } from '@roster/kv-adapter/internal';
import type {
  CompareAndSetOptions,
  CompareAndSetResult,
  KV,
  KVCapabilities,
  KVOperationOptions,
  SetOptions,
} from '@roster/kv-adapter';
import type { Fault } from './Fault.js';
import type { KVOperation } from './FaultOptions.js';
import { shorten, type OperationRecord } from './OperationLog.js';

/** What the injector decided for one operation when it was issued (every random draw is made then). */
export interface Plan {
  /** Delay before the operation reaches the inner store. */
  readonly beforeMs: number;
  /** Delay between the inner store's answer and the caller's. */
  readonly afterMs: number;
  /** The latency fault that delayed it, if any. */
  readonly latency: Fault | undefined;
  /** A random failure drawn for it, before or after applying. */
  readonly failure: { readonly fault: Fault; readonly after: boolean; readonly error: RosterError } | undefined;
  /** The client's pool it must take a connection from first (a `connections` fault). */
  readonly connections?: { readonly fault: Fault; readonly gate: LifoGate; readonly serviceMs: number; readonly maxWaitMs: number };
}

/** An outage or key fault that refuses an operation when it reaches the store. */
export interface Refusal {
  readonly fault: Fault;
  readonly stallMs: number;
  readonly error: RosterError;
}

/** The side of the `FaultInjector` that its views talk to; not public. */
export interface FaultPort {
  readonly clock: Clock;
  plan(node: string | undefined, op: KVOperation, key: string | undefined): Plan;
  refusal(node: string | undefined, op: KVOperation, key: string | undefined): Refusal | undefined;
  record(record: Omit<OperationRecord, 'seq'>): void;
}

/**
 * One node's view of a store through a {@link FaultInjector}: a {@link KV} that forwards every
 * operation to the inner store unless one of the injector's faults applies to this node, this
 * operation and this key. Create views with {@link FaultInjector.view}; several views (one per
 * node) may share one inner store.
 *
 * What happens to an operation, in order:
 * 1. When it is issued, the injector draws its random fate (latency, random failure) from the
 *    seeded source, in the order operations are issued. Under a `connections` fault it then waits
 *    for a connection (refused, never sent, when it waits too long) and holds it `serviceMs`, and
 *    until its answer.
 * 2. A `'delay-then-apply'` latency delays it.
 * 3. When it reaches the store, an active outage or key fault refuses it (after `stallMs`).
 * 4. A random failure drawn without `after` fails it; otherwise the inner store applies it.
 * 5. An `'apply-then-delay'` latency delays the answer; a failure drawn with `after` replaces a
 *    success with `StoreUnavailableError` (the write stays applied).
 *
 * Faults only take availability away: a view never returns a value the inner store did not hold.
 * `close()` closes the view only, never the shared inner store: close that yourself.
 */
export class FaultyKV implements KV {
  readonly name: string;
  /** The node this view belongs to, if any. */
  readonly node: string | undefined;
  /** The store behind the view. */
  readonly inner: KV;
  readonly #port: FaultPort;
  #closed = false;

  /** @internal Use {@link FaultInjector.view}. */
  constructor(inner: KV, node: string | undefined, port: FaultPort) {
    this.inner = inner;
    this.node = node;
    this.#port = port;
    this.name = `FaultyKV(${inner.name}${node === undefined ? '' : ` @${node}`})`;
  }

  /** The inner store's capabilities. */
  get capabilities(): KVCapabilities {
    return this.inner.capabilities;
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#run('get', key, undefined, options, (sent) => this.inner.get(key, sent), showValue);
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#run('set', key, value, options, (sent) => this.inner.set(key, value, sent), () => undefined);
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#run('delete', key, undefined, options, (sent) => this.inner.delete(key, sent), String);
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#run('append', key, value, options, (sent) => this.inner.append(key, value, sent), String);
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#run('take', key, undefined, options, (sent) => this.inner.take(key, sent), showValue);
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#run('getRange', key, undefined, options, (sent) => this.inner.getRange(key, start, end, sent), showValue);
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#run('exchange', key, value, options, (sent) => this.inner.exchange(key, value, sent), showValue);
  }

  compareAndSet(
    key: string,
    expected: string | null,
    value: string,
    options?: CompareAndSetOptions,
  ): Promise<CompareAndSetResult> {
    return this.#run(
      'compareAndSet',
      key,
      value,
      options,
      (sent) => this.inner.compareAndSet(key, expected, value, sent),
      (r) => (r.swapped ? 'swapped' : `not swapped, current ${showValue(r.current)}`),
    );
  }

  time(options?: KVOperationOptions): Promise<number> {
    return this.#run('time', undefined, undefined, options, (sent) => this.inner.time(sent), String);
  }

  /** Closes this view; later operations through it reject with `KVClosedError`. The inner store stays open. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  /**
   * Runs one operation through the faults. The caller's `signal` abandons the caller's wait at
   * once; the operation itself is given up only while it has not left the client (waiting for a
   * connection, or refused after a stall): once sent, a delayed request still reaches the store
   * and is applied there, as on a real network (`KVOperationOptions.signal`: the store may still
   * apply it).
   */
  #run<T>(
    op: KVOperation,
    key: string | undefined,
    value: string | undefined,
    options: KVOperationOptions | undefined,
    apply: <O extends KVOperationOptions>(sent: O | undefined) => Promise<T>,
    show: (result: T) => string | undefined,
  ): Promise<T> {
    const work = this.#attempt(op, key, value, options, apply, show);
    return options?.signal ? raceSignal(work, options.signal) : work;
  }

  async #attempt<T>(
    op: KVOperation,
    key: string | undefined,
    value: string | undefined,
    options: KVOperationOptions | undefined,
    apply: <O extends KVOperationOptions>(sent: O | undefined) => Promise<T>,
    show: (result: T) => string | undefined,
  ): Promise<T> {
    const clock = this.#port.clock;
    const signal = options?.signal;
    const at = clock.now();
    let fault: Fault | undefined;
    const record = (outcome: Pick<OperationRecord, 'outcome' | 'result' | 'code'>): void =>
      this.#port.record({
        at,
        doneAt: clock.now(),
        node: this.node,
        op,
        ...(key === undefined ? {} : { key }),
        ...(typeof value === 'string' ? { value: shorten(value) } : {}),
        ...outcome,
        ...(fault === undefined ? {} : { fault: String(fault) }),
      });
    let release: (() => void) | undefined;
    try {
      if (this.#closed) throw new KVClosedError(this.name);
      const plan = this.#port.plan(this.node, op, key);
      fault = plan.latency;
      if (plan.connections !== undefined) {
        const pool = plan.connections;
        fault = pool.fault;
        release = await takeConnection(clock, pool, signal, options?.urgent === true);
      }
      // Sent: what follows happens whether or not the caller still waits.
      if ((plan.connections?.serviceMs ?? 0) > 0) await sleep(clock, plan.connections!.serviceMs);
      if (plan.beforeMs > 0) await sleep(clock, plan.beforeMs);

      const refusal = this.#port.refusal(this.node, op, key);
      if (refusal !== undefined) {
        fault = refusal.fault;
        refusal.fault.hit();
        if (refusal.stallMs > 0) await sleep(clock, refusal.stallMs, signal);
        throw refusal.error;
      }
      const failure = plan.failure;
      if (failure !== undefined && !failure.after) {
        fault = failure.fault;
        failure.fault.hit();
        throw failure.error;
      }

      let settled: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        // The store applies what reached it: the caller's signal stays on the caller's side.
        settled = { ok: true, value: await apply(withoutSignal(options)) };
      } catch (error) {
        settled = { ok: false, error };
      }
      if (plan.afterMs > 0) await sleep(clock, plan.afterMs);
      if (!settled.ok) throw settled.error;
      if (failure !== undefined) {
        fault = failure.fault;
        failure.fault.hit();
        throw failure.error;
      }
      const result = show(settled.value);
      record({ outcome: 'ok', ...(result === undefined ? {} : { result }) });
      return settled.value;
    } catch (error) {
      record({ outcome: 'error', ...(RosterError.is(error) ? { code: error.code } : {}) });
      throw error;
    } finally {
      release?.();
    }
  }
}

/** `options` without its `signal`: what the store is given of an operation that reached it. */
function withoutSignal<O extends KVOperationOptions>(options: O | undefined): O | undefined {
  if (options?.signal === undefined) return options;
  const { signal: _signal, ...rest } = options;
  return rest as O;
}

/**
 * A connection of `pool` (in its urgent lane for an `urgent` operation), within its `maxWaitMs` or
 * until `signal` aborts: then the operation is never sent, and its timeout says so
 * (`StoreUnavailableError.queued`, marked by the gate, as are the caller's timeouts of an
 * operation sent after a wait): the store's command timeout after `maxWaitMs`, as a database
 * store's, or the caller's.
 */
async function takeConnection(clock: Clock, pool: NonNullable<Plan['connections']>, signal: AbortSignal | undefined, urgent: boolean): Promise<() => void> {
  if (pool.maxWaitMs === Infinity) return pool.gate.acquire(signal, urgent);
  const wait = deadline(clock, pool.maxWaitMs, signal, () => new StoreUnavailableError(`injected: no connection free within ${pool.maxWaitMs} ms (${pool.fault})`, { timedOut: true }));
  try {
    const release = await pool.gate.acquire(wait.signal, urgent);
    // Kept until the connection is given back: the caller's abort reaches the gate through it.
    return () => {
      wait.dispose();
      release();
    };
  } catch (error) {
    wait.dispose();
    throw error;
  }
}

function showValue(value: string | null): string {
  return value === null ? 'null' : shorten(value);
}
