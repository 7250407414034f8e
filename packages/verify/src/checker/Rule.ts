import type { History, Observation } from '../history/History.js';
import type { ResolvedCheckOptions } from './CheckOptions.js';

/** The rules a history is checked against; see each rule's module. */
export type RuleName = 'two-leaders' | 'token-order' | 'fenced-write' | 'failover' | 'recovery' | 'operation-budget';

/** One way a history broke a rule. */
export interface Violation {
  /** The rule broken. */
  readonly rule: RuleName;
  /** When (ms since the run's start). */
  readonly at: number;
  /** What happened, naming the nodes, the times and the tokens involved. */
  readonly message: string;
  /** The lines of the nodes involved nearest to `at`, in time order, for a person to read. */
  readonly around: readonly Observation[];
}

/** A property of whole histories. */
export interface Rule {
  readonly name: RuleName;
  /** What it promises, in one sentence. */
  readonly summary: string;
  /** The ways `history` breaks it (none when it holds). */
  check(history: History, options: ResolvedCheckOptions): Violation[];
}
