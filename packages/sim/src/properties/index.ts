import type { Run } from '../runtime/Simulation.js';
import { convergence, convergenceTime } from './convergence.js';
import { monotonic, tokenInversions } from './monotonic.js';
import { noMemberLost } from './noMemberLost.js';
import { nothingInvented } from './nothingInvented.js';
import { pauseTolerance } from './pauseTolerance.js';
import type { Property, PropertyName, Violation } from './Property.js';
import { dualLeadershipTime, selfFencing } from './selfFencing.js';
import { wellBehaved } from './wellBehaved.js';
import { operationBudget, worstPerInterval } from './operationBudget.js';
import { reportedLeadership } from './reportedLeadership.js';
import { routingTolerance } from './routingTolerance.js';
import { preemption } from './preemption.js';
import { outageRecovery } from './outageRecovery.js';

/** Every property, in the order they are checked. */
export const PROPERTIES: readonly Property[] = [convergence, monotonic, nothingInvented, noMemberLost, selfFencing, reportedLeadership, wellBehaved, operationBudget, pauseTolerance, routingTolerance, preemption, outageRecovery];

/** What a run measured, whether or not its properties held. */
export interface Measures {
  /** ms from the last fault to convergence for good; `undefined` when it never converged. */
  readonly convergenceMs: number | undefined;
  /** Total virtual time with two or more nodes having `isLeader()` true. */
  readonly dualLeadershipMs: number;
  /** Leaderships whose fencing token did not exceed an earlier one's (not excused by data loss). */
  readonly tokenInversions: number;
  /** The most store commands one node issued within an interval. */
  readonly commandsPerInterval: number;
  /** The most lines one node logged within an interval. */
  readonly logLinesPerInterval: number;
}

/** The outcome of checking one run. */
export interface RunCheck {
  readonly violations: readonly Violation[];
  readonly measures: Measures;
}

/** Checks `run` against `properties` (all by default) and measures it. */
export function checkRun(run: Run, properties: readonly (Property | PropertyName)[] = PROPERTIES): RunCheck {
  const chosen = properties.map((p) => (typeof p === 'string' ? propertyByName(p) : p));
  return {
    violations: chosen.flatMap((p) => p.check(run)),
    measures: {
      convergenceMs: convergenceTime(run),
      dualLeadershipMs: dualLeadershipTime(run),
      tokenInversions: tokenInversions(run).length,
      ...(({ commands, logLines }) => ({ commandsPerInterval: commands, logLinesPerInterval: logLines }))(worstPerInterval(run)),
    },
  };
}

/** The property called `name`. */
export function propertyByName(name: PropertyName): Property {
  const p = PROPERTIES.find((q) => q.name === name);
  if (!p) throw new Error(`no property called ${JSON.stringify(name)}`);
  return p;
}
