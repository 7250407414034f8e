import type { Clock, Logger } from '@roster/kv-adapter';
import type { KeySelector } from './keys.js';
import type { OperationRecord } from './OperationLog.js';

/** The operations of `KV` that a fault can be limited to. */
export type KVOperation = 'get' | 'set' | 'delete' | 'append' | 'take' | 'getRange' | 'exchange' | 'compareAndSet' | 'time';

/** The kinds of fault a {@link FaultInjector} injects. */
export type FaultKind = 'keyUnavailable' | 'storeOutage' | 'failure' | 'latency' | 'capacity' | 'connections';

/** Options of {@link FaultInjector}. */
export interface FaultInjectorOptions {
  /** The clock that times faults, delays and stalls; a `VirtualClock` makes runs deterministic. */
  readonly clock: Clock;
  /** Seed of the random source behind probabilistic failures and latency; an integer (low 32 bits used). */
  readonly seed: number;
  /**
   * How many of the latest operations {@link FaultInjector.operations} keeps (a ring buffer);
   * 0 keeps none (use {@link onOperation}).
   * @defaultValue 1000
   */
  readonly logCapacity?: number;
  /** Called with every operation once it settles, through any view. Exceptions are logged and dropped. */
  readonly onOperation?: (record: OperationRecord) => void;
  /** Where errors thrown by scheduled actions and listeners go. @defaultValue silentLogger */
  readonly logger?: Logger;
}

/** Options every fault takes: which node it hits and for how long. */
export interface FaultScope {
  /** Only views of this node are affected. @defaultValue every node */
  readonly node?: string;
  /** The fault heals by itself this many ms after it is created (on the injector's clock). @defaultValue never: for good */
  readonly forMs?: number;
}

/** Options of {@link FaultInjector.keyUnavailable}. */
export interface KeyUnavailableOptions extends FaultScope {
  /** Wait this long before rejecting, as a client whose command times out would. @defaultValue 0 */
  readonly stallMs?: number;
  /**
   * Hang instead: an operation on the keys settles only when the caller's signal aborts it (with
   * the signal's reason) or the fault ends (then `KeyUnavailableError`), as on a frozen
   * (SIGSTOPped) Redis Cluster shard, or a dead one the client has not yet noticed: the caller
   * sees its own deadline pass, not a typed refusal. Needs `forMs`; `stallMs` is ignored.
   * @defaultValue false
   */
  readonly hang?: boolean;
}

/** The store a {@link FaultInjector.keyRollback} rolls back: `MemoryKV` is one. */
export interface RollbackStore {
  /** Every key it holds now. */
  keys(): string[];
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/** Options of {@link FaultInjector.keyRollback}. */
export interface KeyRollbackOptions {
  /** How long the keys are away (on the injector's clock). */
  readonly forMs: number;
  /** While away, operations hang until the caller gives up (a SIGSTOPped shard) instead of being refused at once. @defaultValue false */
  readonly hang?: boolean;
  /** After the keys return, their operations fail at random for this long, as clients reconnect. @defaultValue 0 */
  readonly flakyMs?: number;
  /** The chance, from 0 to 1, that an operation fails during `flakyMs`. @defaultValue 0.5 */
  readonly flakyProbability?: number;
}

/** Options of {@link FaultInjector.storeOutage}. */
export interface StoreOutageOptions extends FaultScope {
  /** Wait this long before rejecting, as a client whose command times out would. @defaultValue 0 */
  readonly stallMs?: number;
}

/** Options of {@link FaultInjector.failures}. */
export interface FailureOptions extends FaultScope {
  /** The chance, from 0 to 1, that a matching operation fails. */
  readonly probability: number;
  /** Only these keys. @defaultValue every key, and `time()` */
  readonly keys?: KeySelector;
  /** Only these operations. @defaultValue every operation */
  readonly ops?: readonly KVOperation[];
  /**
   * Fail after the inner store applied the operation, as when the reply is lost: the write is
   * done but the caller sees `StoreUnavailableError`.
   * @defaultValue false: fail before applying
   */
  readonly after?: boolean;
}

/**
 * When {@link FaultInjector.latency} delays an operation:
 * - `'delay-then-apply'`: the request is slow; the inner store applies the operation when the
 *   delay ends, so operations with different delays may reach it in another order than they were
 *   issued (as over several connections or shards).
 * - `'apply-then-delay'`: the reply is slow; the inner store applies the operation at once, in
 *   the order operations were issued, and the caller hears of it after the delay.
 *
 * Either way an operation's result is exactly what the inner store returned when it applied it.
 */
export type LatencyMode = 'delay-then-apply' | 'apply-then-delay';

/** Options of {@link FaultInjector.latency}. */
export interface LatencyOptions extends FaultScope {
  /** The shortest delay, in whole ms. */
  readonly minMs: number;
  /** The longest delay, in whole ms; each operation draws uniformly from `minMs … maxMs`. */
  readonly maxMs: number;
  /** Only these keys. @defaultValue every key, and `time()` */
  readonly keys?: KeySelector;
  /** Only these operations. @defaultValue every operation */
  readonly ops?: readonly KVOperation[];
  /** @defaultValue `'delay-then-apply'` */
  readonly mode?: LatencyMode;
}

/** Options of `FaultInjector.capacity`. */
export interface CapacityOptions extends FaultScope {
  /** How many operations the store serves per second, one after another. */
  readonly opsPerSecond: number;
  /**
   * The longest wait the queue holds: an operation that would wait longer is refused at once
   * (unavailable, never applied), as a server whose connection or request queue is full refuses.
   * It bounds how late an operation is applied after its caller gave up. @defaultValue Infinity
   */
  readonly maxQueueMs?: number;
}

/** Options of `FaultInjector.connections`. */
export interface ConnectionsOptions extends FaultScope {
  /** How many operations hold a connection at once (the size of the client's pool). */
  readonly size: number;
  /** How long each operation holds its connection before the store applies it, in whole ms. */
  readonly serviceMs: number;
  /**
   * The longest an operation waits for a connection: then it is refused, never sent
   * (`StoreUnavailableError`), as by a client's own command timeout. An operation whose caller's
   * signal aborts while it waits leaves unsent at once. @defaultValue Infinity
   */
  readonly maxWaitMs?: number;
}

/** A fault or scheduled action, returned so that a test can heal it early and see what it did. */
export interface FaultHandle {
  /** Unique within the injector, in order of creation; operation records name faults by it. */
  readonly id: number;
  /** What the fault does; `'scheduled'` for an {@link FaultInjector.at} action. */
  readonly kind: FaultKind | 'scheduled';
  /** The node it is limited to, if any. */
  readonly node: string | undefined;
  /**
   * True while it can still affect operations: not healed and its `forMs` not over (for a
   * scheduled action: not yet run, or the fault it created is active).
   */
  readonly active: boolean;
  /** How many operations it has affected (failed, refused or delayed). */
  readonly hits: number;
  /** Ends the fault now (a scheduled action that has not run is cancelled). Idempotent. */
  heal(): void;
}

/** Counters of a {@link FaultInjector}. */
export interface FaultStats {
  /** Faults created so far (scheduled actions not included). */
  readonly created: number;
  /** Faults active now. */
  readonly active: number;
  /** Operations settled through every view. */
  readonly operations: number;
  /** Operations affected, by kind of fault (an operation delayed then refused counts twice). */
  readonly injected: Readonly<Record<FaultKind, number>>;
}
