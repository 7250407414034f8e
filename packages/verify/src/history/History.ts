/**
 * The record a check runs on: what every node publicly reported, the fenced writes the run made,
 * and the faults that were open, all on one time axis (milliseconds since the run's start, on
 * the observer's monotonic clock). Real runs (`roster verify`) and the simulator build the same
 * shape, so one set of rules checks both.
 *
 * @packageDocumentation
 */
import type { NodeEvent } from '@roster/client';

/** One line a node printed (or streamed), and when the observer read it. */
export interface Observation {
  /** The id of the node that reported it. */
  readonly node: string;
  /** When the observer read the line: ms since the run's start, on the observer's monotonic clock. */
  readonly at: number;
  /** The line itself, as the JSON-lines contract defines it (its own `ts` is not trusted). */
  readonly event: NodeEvent;
}

/** One write a leader made to the run's fenced register, and what the register answered. */
export interface FencedWrite {
  /** The node that wrote. */
  readonly node: string;
  /** When the register received it (ms since the run's start). */
  readonly at: number;
  /** The fencing token the writer attached, a decimal string (it can exceed 2^53). */
  readonly token: string;
  /** Whether the register accepted the write. */
  readonly accepted: boolean;
  /** The highest token the register had seen before this write, a decimal string (`"0"` for none). */
  readonly highestSeen: string;
}

/**
 * A fault the nemesis held open from `from` to `to` (ms since the run's start).
 *
 * `kind` is e.g. `'cut-silent'`, `'cut-reset'`, `'drop-replies'`, `'latency'`, `'flap'` (the
 * node's link to the store), `'kill'`, `'pause'`, `'term'` (the node's process), or
 * `'store-kill'`, `'store-freeze'`, `'store-restart'` (the store, `target` `"store"`). For a
 * `'kill'`, `from` is the instant of the SIGKILL; `to` is when the node was started again, or the
 * end of the run when it was not.
 */
export interface FaultWindow {
  readonly kind: string;
  /** The node id the fault applies to, or `"store"`. */
  readonly target: string;
  readonly from: number;
  readonly to: number;
}

/** The nodes' timing settings, in ms: interval I, timeout T and the leader's renew deadline. */
export interface HistoryTiming {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly renewDeadlineMs: number;
}

/** Everything one run recorded. */
export interface History {
  /** Every line of every node, in the order read (sorted by `at`). */
  readonly observations: readonly Observation[];
  /** Every write to the fenced register, in the order the register received them. */
  readonly writes: readonly FencedWrite[];
  /** Every fault the nemesis opened. */
  readonly faults: readonly FaultWindow[];
  readonly timing: HistoryTiming;
  /** Every node id that took part. */
  readonly nodes: readonly string[];
  /** Start and end of the run, ms on the same axis as `at`. */
  readonly start: number;
  readonly end: number;
  /** Store operations per node over the run, when known (enables 'operation-budget'). */
  readonly operations?: ReadonlyMap<string, number>;
}
