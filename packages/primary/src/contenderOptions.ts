import type { Clock, KV, Logger, Namespace } from '@roster/kv-adapter';
import type { CorruptEntryReport } from './corruptEntry.js';
import type { StopReason } from './errors.js';
import type { Primary } from './HeartbeatTable.js';
import type { HeartbeatTiming } from './timing.js';

/**
 * Where a contender is in its loop:
 * - `idle`: constructed, not started.
 * - `seeking`: polling `getPrimary` every I; claims the entry when it is empty (steps 2–3).
 * - `claimed`: wrote its heartbeat; the next poll confirms the claim (step 4).
 * - `acting`: the primary; heartbeats and checks every I (step 5).
 * - `stopped`: `stop()` was called (or the process is exiting after a loss).
 */
export type ContenderState = 'idle' | 'seeking' | 'claimed' | 'acting' | 'stopped';

/** Passed to `onStartedActing` and the `startedActing` event. */
export interface StartedActingEvent {
  readonly type: 'startedActing';
  /** The id this contender holds the role type under. */
  readonly id: string;
  /** The role type. */
  readonly utype: string;
  /** The endpoint written in the entry, if any. */
  readonly endpoint?: string;
  /**
   * The store time (ms) of the claim this term rests on. It strictly increases from one term of a
   * role type to the next (a takeover is written more than T after the previous holder's last
   * heartbeat, and the store's clock only grows), so it can serve as a fencing token for
   * downstream systems.
   */
  readonly claimedAt: number;
  /**
   * Aborts (with a `PrimaryLostError`) the moment this contender stops acting as primary, for
   * any reason. Hand it to the primary's work.
   */
  readonly signal: AbortSignal;
}

/** Passed to `onStoppedActing` and the `stoppedActing` event. Always follows a `startedActing`. */
export interface StoppedActingEvent {
  readonly type: 'stoppedActing';
  /** The id it held the role type under. */
  readonly id: string;
  /** The role type. */
  readonly utype: string;
  /** Why it stopped. */
  readonly reason: StopReason;
  /** How long it acted as primary, in ms of its local clock. */
  readonly actedForMs: number;
}

/** The `stateChanged` event. */
export interface StateChangedEvent {
  readonly type: 'stateChanged';
  /** The id at the time of the change. */
  readonly id: string;
  /** The role type. */
  readonly utype: string;
  /** The state left. */
  readonly from: ContenderState;
  /** The state entered. */
  readonly to: ContenderState;
}

/** The `primaryObserved` event: the primary this contender sees changed (instance or endpoint). */
export interface PrimaryObservedEvent {
  readonly type: 'primaryObserved';
  /** The role type. */
  readonly utype: string;
  /** The primary now seen, or `undefined` when there is none. */
  readonly primary: Primary | undefined;
}

/** The `roundFailed` event: a poll or heartbeat round failed (the store is unreachable, …). */
export interface RoundFailedEvent {
  readonly type: 'roundFailed';
  /** The id. */
  readonly id: string;
  /** The role type. */
  readonly utype: string;
  /** The state the round ran in. */
  readonly state: ContenderState;
  /** What the store (or the round's timeout) rejected with. */
  readonly error: unknown;
}

/** The `corruptEntry` event: a corrupt entry was read (and treated as empty). */
export interface CorruptEntryEvent extends CorruptEntryReport {
  readonly type: 'corruptEntry';
}

/**
 * Every event of {@link PrimaryContender}, told apart by `type`: `startedActing` (this contender
 * became the primary), `stoppedActing` (it stopped being the primary), `stateChanged` (it moved
 * between states), `primaryObserved` (the primary seen in the table changed), `roundFailed` (a
 * round failed; the loop goes on) and `corruptEntry` (a corrupt entry was read).
 */
export type PrimaryContenderEvent =
  | StartedActingEvent
  | StoppedActingEvent
  | StateChangedEvent
  | PrimaryObservedEvent
  | RoundFailedEvent
  | CorruptEntryEvent;

/** Options of {@link PrimaryContender}. */
export interface PrimaryContenderOptions extends HeartbeatTiming {
  /** The store; it must declare the `compareAndSet` and `time` capabilities. */
  readonly store: KV;
  /** The key prefix of the heartbeat table. */
  readonly namespace: Namespace;
  /** The role type to contend for: 1 to 128 characters without whitespace. */
  readonly utype: string;
  /** Where this instance listens, written in its entry so clients can resolve it. */
  readonly endpoint?: string;
  /** Times every poll, heartbeat and local deadline. @defaultValue the real clock */
  readonly clock?: Clock;
  /** Where the contender logs. @defaultValue silentLogger */
  readonly logger?: Logger;
  /**
   * Makes the id; called on start and each time the contender starts over after losing.
   * Each id must be a node id: 1 to 128 of letters, digits and `. _ @ -` (`isValidId` of
   * `@roster/follower`, the one rule for every id Roster takes).
   * @defaultValue `newId` of `@roster/follower` (a random UUID without dashes)
   */
  readonly generateId?: () => string;
  /** Called when this contender becomes the primary (same as the `startedActing` event). */
  readonly onStartedActing?: (event: StartedActingEvent) => void;
  /** Called when it stops being the primary, for any reason (same as the `stoppedActing` event). */
  readonly onStoppedActing?: (event: StoppedActingEvent) => void;
  /**
   * "Exit itself and restart", as a classic per-type primary does: when the contender loses the
   * role (any reason but `stop()`), it calls `exit(1)` right after `onStoppedActing`, so a
   * supervisor restarts the process. Without it the contender starts over in-process under a new id.
   * @defaultValue false: the library never exits on its own
   */
  readonly exitOnLoss?: boolean;
  /** What `exitOnLoss` calls. @defaultValue `process.exit` */
  readonly exit?: (code: number) => void;
  /**
   * Whether `stop()` gives the entry up (compare-and-set to an expired entry) so a successor need
   * not wait T. `stop({ release })` overrides it.
   * @defaultValue true
   */
  readonly releaseOnStop?: boolean;
  /** Aborting it stops the contender as `stop()` does. */
  readonly signal?: AbortSignal;
}

/** Options of {@link PrimaryContender.stop}. */
export interface StopOptions {
  /** Give the entry up so a successor need not wait T. @defaultValue the `releaseOnStop` option */
  readonly release?: boolean;
  /** Bounds the release (which is also bounded by I on its own). */
  readonly signal?: AbortSignal;
}
