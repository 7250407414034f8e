import type { RosterUpdate } from '@roster/election';
import type { Broadcast } from '@roster/follower';
import type { OperationRecord } from '@roster/testing';
import type { NodeId, Step } from '../scenario/Scenario.js';

/**
 * One incarnation of a node: a `RosterNode` object, from its start to its stop or crash. A
 * restart makes a new incarnation with the same id, labelled `n1#2`, `n1#3`…
 */
export interface Incarnation {
  /** `n1` for the first incarnation, `n1#2` for the second… */
  readonly label: string;
  readonly id: NodeId;
  readonly observer: boolean;
  readonly startedAt: number;
  /** The priority it was started with (absent: 0). */
  readonly priority?: number;
  /** When it was crashed, or its graceful stop completed. */
  endedAt?: number;
  /** How it ended. */
  end?: 'crashed' | 'stopped';
}

/** Something that happened during a run, in time order. */
export type HistoryEntry =
  /** A scenario step, applied or skipped (with why). */
  | { readonly at: number; readonly kind: 'step'; readonly step: Step; readonly skipped?: string }
  /** An update a node emitted (`watch`): role, leader, members, goodbye, stopped. */
  | { readonly at: number; readonly kind: 'update'; readonly node: string; readonly update: RosterUpdate }
  /** A paused node resumed. */
  | { readonly at: number; readonly kind: 'resumed'; readonly node: string }
  /** A node's graceful stop completed. */
  | { readonly at: number; readonly kind: 'stopped'; readonly node: string }
  /** Something the production code should never do: a timer callback threw, a crashed node wrote. */
  | { readonly at: number; readonly kind: 'anomaly'; readonly node?: string; readonly message: string };

/** A candidate's claim, as its node issued it. */
export interface Claim {
  readonly at: number;
  readonly node: string;
  readonly id: NodeId;
  readonly era: number;
  readonly nonce: number;
}

/** A write at a leader key that replaced the broadcast of a better leadership. */
export interface Overwrite {
  readonly at: number;
  /** The key, relative to the cluster's namespace (`leader 0`). */
  readonly key: string;
  readonly previous: Broadcast;
  readonly value: Broadcast;
}

/** A line a node logged (debug lines are not kept). */
export interface LogLine {
  readonly at: number;
  /** The incarnation's label. */
  readonly node: string;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

/** A node appending its own id to the join key. */
export interface JoinRequest {
  readonly at: number;
  readonly node: string;
  readonly id: NodeId;
}

/**
 * The state of the cluster from `at` until the next sample: which incarnations have
 * `isLeader()` true, and whether the live nodes have converged (see `convergedNow`).
 */
export interface Sample {
  readonly at: number;
  readonly leaders: readonly string[];
  readonly converged: boolean;
}

/**
 * Everything a run recorded: what happened to each node (role, leader with era and fencing token,
 * member list, over time), every KV operation, every claim and join, and the leadership and
 * convergence of the cluster at every instant.
 */
export class History {
  readonly entries: HistoryEntry[] = [];
  readonly incarnations: Incarnation[] = [];
  /** Every operation through the fault injector, in the order they settled. */
  readonly operations: OperationRecord[] = [];
  readonly claims: Claim[] = [];
  readonly joins: JoinRequest[] = [];
  /** Leader-key writes that replaced a better leadership's broadcast (compare-and-set prevents them). */
  readonly overwrites: Overwrite[] = [];
  /** One sample per change of leaders or convergence. */
  readonly samples: Sample[] = [];
  /** What the nodes logged, in order. */
  readonly logs: LogLine[] = [];
  /**
   * Instants at which a running, unpaused node's updates disagreed with `isLeader()`: its last
   * `role` update said `leader` though its lease no longer held (`shown: 'leader'`), or the
   * reverse. A user reading the updates would have been told something else than the truth
   * (see the `reported-leadership` property).
   */
  readonly misreports: { readonly at: number; readonly node: string; readonly shown: string | undefined; readonly isLeader: boolean }[] = [];
  /** Instants at which a node became leader while another already had `isLeader()` true. */
  readonly overlaps: { readonly at: number; readonly leaders: readonly string[] }[] = [];
  /** Virtual time when the run ended. */
  end = 0;

  add(entry: HistoryEntry): void {
    this.entries.push(entry);
  }

  /** Records the state at `at` when it differs from the last sample. */
  sample(at: number, leaders: readonly string[], converged: boolean): void {
    const last = this.samples.at(-1);
    if (last && last.converged === converged && last.leaders.length === leaders.length && last.leaders.every((l, i) => l === leaders[i])) return;
    if (last && last.at === at) this.samples.pop();
    this.samples.push({ at, leaders, converged });
  }

  /** The updates of one incarnation, in order. */
  updatesOf(label: string): { at: number; update: RosterUpdate }[] {
    return this.entries.flatMap((e) => (e.kind === 'update' && e.node === label ? [{ at: e.at, update: e.update }] : []));
  }

  /** The steps applied (not skipped), in order. */
  appliedSteps(): Step[] {
    return this.entries.flatMap((e) => (e.kind === 'step' && e.skipped === undefined ? [e.step] : []));
  }
}
