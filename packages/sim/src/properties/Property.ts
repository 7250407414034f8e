import type { Run } from '../runtime/Simulation.js';

/** The properties every run is checked against. */
export type PropertyName =
  | 'convergence'
  | 'monotonic'
  | 'nothing-invented'
  | 'no-member-lost'
  | 'self-fencing'
  | 'reported-leadership'
  | 'well-behaved'
  | 'operation-budget'
  | 'pause-tolerance'
  | 'routing-tolerance'
  | 'preemption'
  | 'outage-recovery';

/** One way a run broke a property. */
export interface Violation {
  readonly property: PropertyName;
  /** Virtual time of the violation. */
  readonly at: number;
  readonly message: string;
}

/** A property of whole runs. */
export interface Property {
  readonly name: PropertyName;
  /** What it promises, in one sentence. */
  readonly summary: string;
  /** The ways `run` breaks it (none when it holds). */
  check(run: Run): Violation[];
}
