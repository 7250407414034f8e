import { ConfigError, KeyUnavailableError, StoreUnavailableError, silentLogger, type Clock, type KV, type Logger } from '@roster/kv-adapter';
import { LifoGate } from '@roster/kv-adapter/internal';
import { Fault, ScheduledAction, type FaultEffect } from './Fault.js';
import type {
  FailureOptions,
  FaultHandle,
  FaultInjectorOptions,
  FaultKind,
  FaultScope,
  FaultStats,
  KeyRollbackOptions,
  KeyUnavailableOptions,
  KVOperation,
  LatencyOptions,
  CapacityOptions,
  ConnectionsOptions,
  RollbackStore,
  StoreOutageOptions,
} from './FaultOptions.js';
import { FaultyKV, type FaultPort, type Plan, type Refusal } from './FaultyKV.js';
import { keyMatcher, type KeySelector } from './keys.js';
import { OperationLog, type OperationRecord } from './OperationLog.js';
import { SeededRandom } from './random.js';

const OPERATIONS: ReadonlySet<string> = new Set<KVOperation>(['get', 'set', 'delete', 'append', 'take', 'getRange', 'exchange', 'compareAndSet', 'time']);

/**
 * Injects faults into any {@link KV}, reproducibly, for tests and simulation.
 *
 * The injector holds the active faults and a seeded random source; {@link view} wraps a store
 * in a {@link FaultyKV} for one node. Views of different nodes may share one inner store, which
 * is how a fault can hit node A's view of a key while node B still reaches it.
 *
 * Faults: {@link keyUnavailable}, {@link keyRollback} (a shard that comes back with older data),
 * {@link storeOutage}, random {@link failures} (before or after applying), {@link latency}; each can be limited to one node and to a time (`forMs`), and
 * scheduled for later with {@link at}. Every timer runs on the injected clock, so on a
 * `VirtualClock` a run is deterministic: the same seed, the same operations issued in the same
 * order and the same clock give the same outcomes, event for event. Random draws happen only
 * when an operation is issued, in issue order.
 *
 * Every operation through any view is recorded ({@link operations}, `onOperation`).
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * const store = new MemoryKV({ clock });
 * const faults = new FaultInjector({ clock, seed: 42 });
 * const a = faults.view(store, 'A');
 * const b = faults.view(store, 'B');
 * faults.keyUnavailable('leader 0', { node: 'A', forMs: 5000 });
 * await b.set('leader 0', 'B');  // ok
 * await a.get('leader 0');       // rejects: KeyUnavailableError
 * await clock.advance(5000);
 * await a.get('leader 0');       // 'B'
 * ```
 */
export class FaultInjector {
  /** The clock that times faults. */
  readonly clock: Clock;
  /** The seed of the random source. */
  readonly seed: number;
  readonly #random: SeededRandom;
  readonly #log: OperationLog;
  readonly #onOperation: ((record: OperationRecord) => void) | undefined;
  readonly #logger: Logger;
  readonly #port: FaultPort;
  #faults: Fault[] = [];
  readonly #scheduled = new Set<ScheduledAction>();
  #nextId = 1;
  #created = 0;
  #recorded = 0;
  readonly #injected: Record<FaultKind, number> = { keyUnavailable: 0, storeOutage: 0, failure: 0, latency: 0, capacity: 0, connections: 0 };

  constructor(options: FaultInjectorOptions) {
    const { clock, seed } = options;
    if (typeof clock?.setTimer !== 'function') throw new ConfigError('clock', clock, 'Expected `clock` to be a Clock');
    if (!Number.isSafeInteger(seed)) throw new ConfigError('seed', seed, 'Expected `seed` to be an integer');
    const capacity = options.logCapacity ?? 1000;
    checkCount('logCapacity', capacity);
    this.clock = clock;
    this.seed = seed;
    this.#random = new SeededRandom(seed);
    this.#log = new OperationLog(capacity);
    this.#onOperation = options.onOperation;
    this.#logger = options.logger ?? silentLogger;
    this.#port = {
      clock,
      plan: (node, op, key) => this.#plan(node, op, key),
      refusal: (node, op, key) => this.#refusal(node, op, key),
      record: (record) => this.#record(record),
    };
  }

  /**
   * A view of `inner` for `node`: a {@link FaultyKV} that the faults of this injector apply to.
   * A view without a node is hit only by faults without a `node`.
   */
  view(inner: KV, node?: string): FaultyKV {
    return new FaultyKV(inner, node, this.#port);
  }

  /**
   * Makes the keys matching `keys` unavailable: operations on them reject with
   * `KeyUnavailableError`, as when their shard is down.
   *
   * @example
   * ```ts
   * faults.keyUnavailable({ prefix: 'roster/app/prod/leader ' }, { node: 'A', forMs: 10_000 });
   * ```
   */
  keyUnavailable(keys: KeySelector, options: KeyUnavailableOptions = {}): FaultHandle {
    const stallMs = options.stallMs ?? 0;
    checkCount('stallMs', stallMs);
    if (options.hang === true && options.forMs === undefined) {
      throw new ConfigError('forMs', options.forMs, 'Expected `forMs` with `hang: true` (a hang must end)');
    }
    return this.#add({ kind: 'keyUnavailable', stallMs, hang: options.hang === true }, options, keyMatcher(keys), undefined);
  }

  /**
   * A shard that goes away and comes back with older data, as a Redis Cluster master restarted
   * from an older snapshot: the keys matching `keys` that `store` holds now are remembered; the
   * keys become unavailable to every view for `forMs` (refused, or hanging with `hang`); when they
   * return, `store` holds for them the values remembered (writes made meanwhile are lost, keys
   * created meanwhile are gone, and the restored keys have no TTL); then, for `flakyMs`, their
   * operations fail at random (`StoreUnavailableError`), as while clients reconnect.
   * Returns the handle of the unavailability; the return and the flaky period follow `forMs`.
   *
   * @example
   * ```ts
   * faults.keyRollback({ prefix: 'roster/app/prod/leader ' }, store, { forMs: 3000, flakyMs: 500 });
   * ```
   */
  keyRollback(keys: KeySelector, store: RollbackStore, options: KeyRollbackOptions): FaultHandle {
    const matches = keyMatcher(keys);
    if (typeof store?.keys !== 'function') throw new ConfigError('store', store, 'Expected `store` to list its keys (a MemoryKV)');
    const { forMs } = options;
    if (typeof forMs !== 'number' || !(forMs >= 0) || !Number.isFinite(forMs)) {
      throw new ConfigError('forMs', forMs, 'Expected `forMs` to be a non-negative number');
    }
    const flakyMs = options.flakyMs ?? 0;
    checkCount('flakyMs', flakyMs);
    const probability = options.flakyProbability ?? 0.5;
    if (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)) {
      throw new ConfigError('flakyProbability', probability, 'Expected `flakyProbability` to be a number from 0 to 1');
    }
    const remembered = new Map<string, Promise<string | null>>();
    for (const key of store.keys()) if (matches(key)) remembered.set(key, store.get(key));
    const away = this.keyUnavailable(matches, { forMs, ...(options.hang === true && { hang: true }) });
    this.at(this.clock.now() + forMs, async () => {
      for (const key of store.keys()) if (matches(key) && !remembered.has(key)) await store.delete(key);
      for (const [key, value] of remembered) {
        const old = await value;
        if (old === null) await store.delete(key);
        else await store.set(key, old);
      }
      if (flakyMs > 0) this.failures({ probability, forMs: flakyMs, keys: matches });
    });
    return away;
  }

  /** Takes the whole store away: every operation rejects with `StoreUnavailableError`. */
  storeOutage(options: StoreOutageOptions = {}): FaultHandle {
    const stallMs = options.stallMs ?? 0;
    checkCount('stallMs', stallMs);
    return this.#add({ kind: 'storeOutage', stallMs }, options, undefined, undefined);
  }

  /**
   * Fails matching operations at random with `StoreUnavailableError`, with `after: true` once
   * the inner store has applied them (a lost reply).
   *
   * @example
   * ```ts
   * faults.failures({ probability: 0.1, ops: ['set', 'append'], after: true });
   * ```
   */
  failures(options: FailureOptions): FaultHandle {
    const { probability } = options;
    if (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)) {
      throw new ConfigError('probability', probability, 'Expected `probability` to be a number from 0 to 1');
    }
    return this.#add(
      { kind: 'failure', probability, after: options.after === true },
      options,
      options.keys === undefined ? undefined : keyMatcher(options.keys),
      checkOps(options.ops),
    );
  }

  /**
   * Delays matching operations by a whole number of ms drawn uniformly from `minMs … maxMs`,
   * before they reach the store (`'delay-then-apply'`, the default) or after (`'apply-then-delay'`);
   * see {@link LatencyMode}. A delay of 0 does not touch the clock. Several latency faults add up.
   */
  latency(options: LatencyOptions): FaultHandle {
    const { minMs, maxMs } = options;
    checkCount('minMs', minMs);
    checkCount('maxMs', maxMs);
    if (maxMs < minMs) throw new ConfigError('maxMs', maxMs, `Expected \`maxMs\` to be at least \`minMs\` (${minMs})`);
    const mode = options.mode ?? 'delay-then-apply';
    if (mode !== 'delay-then-apply' && mode !== 'apply-then-delay') {
      throw new ConfigError('mode', mode, "Expected `mode` to be 'delay-then-apply' or 'apply-then-delay'");
    }
    return this.#add(
      { kind: 'latency', minMs, maxMs, mode },
      options,
      options.keys === undefined ? undefined : keyMatcher(options.keys),
      checkOps(options.ops),
    );
  }

  /**
   * A store that serves at most `opsPerSecond` operations a second, one after another in the order
   * they arrive (a single-threaded server's queue): each matching operation waits for the ones
   * before it, then takes 1000 / `opsPerSecond` ms, then is applied. An operation whose caller gave
   * up (its deadline) still takes its turn: a server does not know that its client stopped
   * waiting. Below capacity it adds the service time alone; above, the queue and every operation's
   * wait grow for as long as more comes than it serves, up to `maxQueueMs` (then it refuses), which
   * is how an overloaded store looks. Limited to one node, it is that node's own queue.
   */
  capacity(options: CapacityOptions): FaultHandle {
    const { opsPerSecond, maxQueueMs = Infinity } = options;
    if (typeof opsPerSecond !== 'number' || !(opsPerSecond > 0) || !Number.isFinite(opsPerSecond)) {
      throw new ConfigError('opsPerSecond', opsPerSecond, 'Expected `opsPerSecond` to be a positive number');
    }
    if (typeof maxQueueMs !== 'number' || !(maxQueueMs >= 0)) throw new ConfigError('maxQueueMs', maxQueueMs, 'Expected `maxQueueMs` to be a non-negative number');
    return this.#add({ kind: 'capacity', serviceMs: 1000 / opsPerSecond, maxQueueMs, queue: { busyUntil: 0 } }, options, undefined, undefined);
  }

  /**
   * A client whose pool holds `size` connections: at most `size` matching operations are out at
   * once, each holding its connection `serviceMs` before the store applies it and until its answer
   * comes back; the others wait for a connection, and a freed one goes to the newest waiter (the
   * adaptive LIFO of Roster's database stores, `LifoGate`; `urgent` operations first). A waiter
   * whose caller's signal aborts leaves unsent; one still waiting after `maxWaitMs` is refused,
   * never sent (`StoreUnavailableError`, timed out); either timeout, and the caller's of one sent
   * after a wait, is marked `queued`. A burst of operations larger than the pool serves in `maxWaitMs` is
   * how a busy client process looks to the store: some operations of every burst fail, and which
   * ones depends on the order they were issued in. Limited to one node, it is that node's pool.
   */
  connections(options: ConnectionsOptions): FaultHandle {
    const { size, serviceMs, maxWaitMs = Infinity } = options;
    if (!Number.isInteger(size) || size < 1) throw new ConfigError('size', size, 'Expected `size` to be a positive integer');
    checkCount('serviceMs', serviceMs);
    if (typeof maxWaitMs !== 'number' || !(maxWaitMs >= 0)) throw new ConfigError('maxWaitMs', maxWaitMs, 'Expected `maxWaitMs` to be a non-negative number');
    return this.#add({ kind: 'connections', gate: new LifoGate(size), serviceMs, maxWaitMs }, options, undefined, undefined);
  }

  /**
   * Runs `action` when the clock reaches `timeMs` (a `clock.now()` reading; at once, on the next
   * timer turn, when that time has passed). Healing the returned handle cancels the action, or
   * heals the fault it returned. Exceptions thrown by `action` are logged, never rethrown.
   *
   * @example
   * ```ts
   * faults.at(10_000, () => faults.storeOutage({ forMs: 3000 }));
   * ```
   */
  at(timeMs: number, action: () => unknown): FaultHandle {
    if (typeof timeMs !== 'number' || !Number.isFinite(timeMs)) {
      throw new ConfigError('timeMs', timeMs, 'Expected `timeMs` to be a finite clock reading');
    }
    if (typeof action !== 'function') throw new ConfigError('action', action, 'Expected `action` to be a function');
    const scheduled = new ScheduledAction(this.#nextId++);
    this.#scheduled.add(scheduled);
    scheduled.timer = this.clock.setTimer(() => {
      this.#scheduled.delete(scheduled);
      try {
        scheduled.ran(action());
      } catch (error) {
        scheduled.ran(undefined);
        this.#logger.error({ err: error, scheduled: scheduled.id, timeMs }, 'fault injector: a scheduled action threw');
      }
    }, timeMs - this.clock.now());
    return scheduled;
  }

  /** Heals every fault and cancels every scheduled action: from now on every view behaves like its inner store. */
  healAll(): void {
    for (const scheduled of this.#scheduled) scheduled.heal();
    this.#scheduled.clear();
    for (const fault of this.#faults) fault.heal();
    this.#faults = [];
  }

  /** The faults active now, oldest first. */
  get faults(): FaultHandle[] {
    return this.#faults.filter((f) => f.active);
  }

  /** The latest operations through every view, oldest first (at most `logCapacity`). */
  operations(): OperationRecord[] {
    return this.#log.toArray();
  }

  /** How many faults were created and how many operations they affected. */
  stats(): FaultStats {
    return {
      created: this.#created,
      active: this.faults.length,
      operations: this.#recorded,
      injected: { ...this.#injected },
    };
  }

  #add(
    effect: FaultEffect,
    scope: FaultScope,
    keys: ((key: string) => boolean) | undefined,
    ops: ReadonlySet<KVOperation> | undefined,
  ): FaultHandle {
    const { node, forMs } = scope;
    if (node !== undefined && typeof node !== 'string') throw new ConfigError('node', node, 'Expected `node` to be a string');
    if (forMs !== undefined && !(typeof forMs === 'number' && forMs >= 0)) {
      throw new ConfigError('forMs', forMs, 'Expected `forMs` to be a non-negative number');
    }
    const until = forMs === undefined ? Infinity : this.clock.now() + forMs;
    const fault = new Fault(this.#nextId++, effect, { node, until, keys, ops }, this.clock, (kind) => this.#injected[kind]++);
    this.#faults.push(fault);
    this.#created++;
    return fault;
  }

  #plan(node: string | undefined, op: KVOperation, key: string | undefined): Plan {
    // Forget healed and expired faults, so that the list stays as short as the active set.
    if (this.#faults.some((f) => !f.active)) this.#faults = this.#faults.filter((f) => f.active);
    let beforeMs = 0;
    let afterMs = 0;
    let latency: Fault | undefined;
    let failure: Plan['failure'];
    let connections: Plan['connections'];
    for (const fault of this.#faults) {
      if (!fault.covers(node, op, key)) continue;
      const effect = fault.effect;
      if (effect.kind === 'connections') {
        if (connections !== undefined) continue;
        fault.hit();
        connections = { fault, gate: effect.gate, serviceMs: effect.serviceMs, maxWaitMs: effect.maxWaitMs };
      } else if (effect.kind === 'failure') {
        // Always draw, so that the sequence of draws depends only on the operations and faults.
        const fails = this.#random.chance(effect.probability);
        if (fails && failure === undefined) failure = { fault, after: effect.after, error: failureError(fault, effect.after) };
      } else if (effect.kind === 'latency') {
        const ms = this.#random.int(effect.minMs, effect.maxMs);
        if (ms === 0) continue;
        fault.hit();
        latency ??= fault;
        if (effect.mode === 'delay-then-apply') beforeMs += ms;
        else afterMs += ms;
      } else if (effect.kind === 'capacity') {
        // Its turn in the queue, then its service: the wait and the work come before it applies.
        const now = this.clock.now();
        const start = Math.max(now, effect.queue.busyUntil);
        fault.hit();
        if (start - now > effect.maxQueueMs) {
          failure ??= { fault, after: false, error: new StoreUnavailableError(`injected overload: the queue is full (${fault})`) };
          continue;
        }
        effect.queue.busyUntil = start + effect.serviceMs;
        latency ??= fault;
        beforeMs += Math.ceil(effect.queue.busyUntil - now);
      }
    }
    return { beforeMs, afterMs, latency, failure, ...(connections && { connections }) };
  }

  #refusal(node: string | undefined, op: KVOperation, key: string | undefined): Refusal | undefined {
    let refusal: Refusal | undefined;
    for (const fault of this.#faults) {
      const effect = fault.effect;
      if (effect.kind === 'storeOutage' && fault.covers(node, op, key)) {
        // A store outage wins over a key fault: the whole store is what the caller cannot reach.
        return { fault, stallMs: effect.stallMs, error: new StoreUnavailableError(`injected outage (${fault})`) };
      }
      if (effect.kind === 'keyUnavailable' && refusal === undefined && key !== undefined && fault.covers(node, op, key)) {
        const stallMs = effect.hang === true ? fault.remainingMs : effect.stallMs;
        refusal = { fault, stallMs, error: new KeyUnavailableError(key, { reason: `injected (${fault})` }) };
      }
    }
    return refusal;
  }

  #record(record: Omit<OperationRecord, 'seq'>): void {
    const full: OperationRecord = { seq: ++this.#recorded, ...record };
    this.#log.push(full);
    if (this.#onOperation === undefined) return;
    try {
      this.#onOperation(full);
    } catch (error) {
      this.#logger.error({ err: error }, 'fault injector: onOperation threw');
    }
  }
}

function failureError(fault: Fault, after: boolean): StoreUnavailableError {
  return new StoreUnavailableError(
    after ? `injected failure after the operation was applied: reply lost (${fault})` : `injected failure (${fault})`,
  );
}

function checkCount(field: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ConfigError(field, value, `Expected \`${field}\` to be a non-negative integer`);
  }
}

function checkOps(ops: readonly KVOperation[] | undefined): ReadonlySet<KVOperation> | undefined {
  if (ops === undefined) return undefined;
  if (!Array.isArray(ops) || ops.some((op) => !OPERATIONS.has(op))) {
    throw new ConfigError('ops', ops, `Expected \`ops\` to be a list of ${[...OPERATIONS].join(', ')}`);
  }
  return new Set(ops);
}
