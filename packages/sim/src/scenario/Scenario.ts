import type { KVOperation, LatencyMode } from '@roster/testing';

/** A node's id in a scenario, e.g. `"n1"`. */
export type NodeId = string;

/**
 * A key of the simulated cluster, relative to its namespace: `"leader 0"`, `"join *"`,
 * `"id/n2 1"`, `"id/n2 *"` (`*`: every nonce of the window). See {@link parseKeyRef}.
 */
export type KeyRef = string;

/** The protocol's timing in a scenario. */
export interface Timing {
  /** The interval I. @defaultValue 1000 */
  readonly intervalMs: number;
  /** The timeout T (> 2I). @defaultValue 5000 */
  readonly timeoutMs: number;
  /** The candidates' settle time (1 to I); the nodes' default (I/10) when absent. */
  readonly settleMs?: number;
  /** How long one store operation may take (1 to I); the nodes' default (I/2) when absent. */
  readonly operationTimeoutMs?: number;
  /** The renew deadline R (I < R < T − I); the nodes' default (T/2) when absent. */
  readonly renewDeadlineMs?: number;
}

/** Limits a fault to one node's view of the store; without it the fault hits every node. */
export interface NodeScope {
  readonly node?: NodeId;
}

/**
 * One thing that happens in a scenario. Every action is valid in every state: an action that
 * makes no sense at its time (stopping a node that is not running) is recorded as skipped.
 */
export type Action =
  /**
   * Starts the node (as an observer: follows, never joins nor stands), with `priority`
   * (`createNode({ priority })`, 0 when absent). No-op when it runs.
   */
  | { readonly do: 'start'; readonly node: NodeId; readonly observer?: boolean; readonly priority?: number }
  /** Graceful `stop()`: a leader says goodbye, a follower leaves. */
  | { readonly do: 'stop'; readonly node: NodeId }
  /**
   * `resign()`: the node, if it leads, gives up leadership (goodbye) and stands aside for T; it
   * stays a member. Without `node`, whichever node leads then (in the protocol: a leader whose
   * lease lapsed too). Skipped when it does not lead.
   */
  | { readonly do: 'resign'; readonly node?: NodeId }
  /** `destroy()`: to the cluster, a crash. */
  | { readonly do: 'crash'; readonly node: NodeId }
  /** A crash (when running) and a new node with the same id (and priority), started at once. */
  | { readonly do: 'restart'; readonly node: NodeId }
  /**
   * One step of a rolling deploy onto `priority`: a graceful `stop()` of the node and, once it has
   * stopped, `downMs` later (0 when absent), a new node with the same id and that priority.
   * Without `node`, the deploy tool's pick: a running node of lower priority than `priority`, one
   * that does not lead when there is one (the lowest id first). Skipped when there is none.
   */
  | { readonly do: 'redeploy'; readonly node?: NodeId; readonly priority: number; readonly downMs?: number }
  /** Freezes the node as a long GC pause would: its timers and store replies wait until it resumes. */
  | { readonly do: 'pause'; readonly node: NodeId; readonly forMs: number }
  /**
   * Makes keys unavailable (`KeyUnavailableError`), optionally after a stall; with `hang`, their
   * operations hang until the caller gives up, as on a frozen or freshly dead Redis Cluster shard.
   */
  | ({ readonly do: 'keyUnavailable'; readonly keys: KeyRef; readonly forMs: number; readonly stallMs?: number; readonly hang?: boolean } & NodeScope)
  /**
   * A shard that goes away for `forMs` (refused, or hanging with `hang`) and comes back with the
   * data it had when it went away: writes to the keys made meanwhile are lost, so a lower nonce
   * shows older content again; then, for `flakyMs`, their operations fail at random (p = 0.5) as
   * while clients reconnect. Hits every node.
   */
  | { readonly do: 'keyRollback'; readonly keys: KeyRef; readonly forMs: number; readonly hang?: boolean; readonly flakyMs?: number }
  /**
   * A stale routing table: for `forMs`, every operation of `node`'s view on `keys` fails with
   * `KeyUnavailableError` (as a Redis Cluster client whose MOVED replies map to "key
   * unavailable"), while every other node reads and writes them normally; then it heals. The
   * keys never include the node's own id key: a node that could read neither its leader's key nor
   * its PONGs would be indistinguishable from a follower of a crashed leader.
   */
  | { readonly do: 'staleRouting'; readonly node: NodeId; readonly keys: KeyRef; readonly forMs: number }
  /**
   * Takes the whole store away (`StoreUnavailableError`), optionally after a stall; then, for
   * `flakyMs`, operations fail at random (p = 0.5), as while a store just back from crash recovery
   * answers slower than the operation timeout and its clients reconnect.
   */
  | ({ readonly do: 'storeOutage'; readonly forMs: number; readonly stallMs?: number; readonly flakyMs?: number } & NodeScope)
  /** Fails operations at random, before applying them or after (a lost reply). */
  | ({
      readonly do: 'failures';
      readonly probability: number;
      readonly forMs: number;
      readonly after?: boolean;
      readonly ops?: readonly KVOperation[];
      readonly keys?: KeyRef;
    } & NodeScope)
  /** Delays operations by a uniform draw from `minMs … maxMs`. */
  | ({
      readonly do: 'latency';
      readonly minMs: number;
      readonly maxMs: number;
      readonly forMs: number;
      readonly mode?: LatencyMode;
      readonly keys?: KeyRef;
    } & NodeScope)
  /**
   * The store serves at most `opsPerSecond` operations a second, first come first served, for
   * `forMs`; operations whose callers gave up still take their turn (an overloaded server), and
   * one that would wait more than `maxQueueMs` is refused at once (a full queue).
   */
  | { readonly do: 'capacity'; readonly opsPerSecond: number; readonly forMs: number; readonly maxQueueMs: number }
  /**
   * A client process whose pool holds `size` connections (the node's own, with `node`; one pool
   * every node shares, without): at most `size` operations out at once, each holding its
   * connection `serviceMs` and until answered; the others wait, the newest served first (the LIFO
   * of Roster's database stores), and one still waiting after `maxWaitMs` (2 × the operation
   * timeout when absent: the store's own command timeout) is refused unsent. A burst larger than
   * the pool serves in time (a leader's PONG round to every member) loses some of its operations,
   * which ones by the order they were issued in.
   */
  | ({ readonly do: 'connections'; readonly size: number; readonly serviceMs: number; readonly forMs: number; readonly maxWaitMs?: number } & NodeScope)
  /** The store loses all its data (`MemoryKV.flushAll()`), as a Redis restarted without persistence. */
  | { readonly do: 'flush' }
  /**
   * Writes `value` (which must not parse as what the key holds) at one key, as a stray client
   * would; with `repeat`, the value repeated that many times (a huge value, kept short in print).
   */
  | { readonly do: 'garbage'; readonly key: KeyRef; readonly value: string; readonly repeat?: number };

/** An {@link Action} at a virtual time (ms from the start of the run). */
export type Step = Action & { readonly at: number };

/** The kinds of {@link Action}. */
export type ActionKind = Action['do'];

/** Every {@link ActionKind}. */
export const ACTION_KINDS: readonly ActionKind[] = Object.freeze([
  'start', 'stop', 'resign', 'crash', 'restart', 'redeploy', 'pause', 'keyUnavailable', 'keyRollback', 'staleRouting', 'storeOutage', 'failures', 'latency', 'capacity', 'connections', 'flush', 'garbage',
] as const);

/**
 * The kinds random scenarios draw by default: every kind but `redeploy`, whose runs (rolling
 * deploys onto a higher priority) `rollingScenarioArbitrary` draws apart.
 */
export const DRAWN_KINDS: readonly ActionKind[] = Object.freeze(ACTION_KINDS.filter((k) => k !== 'redeploy'));

/**
 * A scenario: plain data, printable ({@link formatScenario}) and serialisable as JSON. Running it
 * twice gives the same run, event for event.
 *
 * @example
 * ```ts
 * const scenario: Scenario = {
 *   seed: 7,
 *   timing: { intervalMs: 1000, timeoutMs: 5000 },
 *   steps: [
 *     { at: 0, do: 'start', node: 'n1' },
 *     { at: 0, do: 'start', node: 'n2' },
 *     { at: 20_000, do: 'crash', node: 'n1' },
 *   ],
 * };
 * ```
 */
export interface Scenario {
  /** Seed of the fault injector's random source (random failures and latency draws). */
  readonly seed: number;
  readonly timing: Timing;
  /** What happens, in time order (steps at the same time run in list order). */
  readonly steps: readonly Step[];
}

/** The default timing: the library's defaults, I = 1 s and T = 5 s. */
export const DEFAULT_TIMING: Timing = Object.freeze({ intervalMs: 1000, timeoutMs: 5000 });
