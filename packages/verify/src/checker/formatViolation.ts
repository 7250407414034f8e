import type { NodeEvent } from '@roster/client';
import type { Observation } from '../history/History.js';
import type { Violation } from './Rule.js';

function describe(e: NodeEvent): string {
  switch (e.event) {
    case 'role':
      return `role ${e.role} (from ${e.previous ?? 'nothing'}, ${e.reason})`;
    case 'leader':
      return e.leader === null ? 'leader none' : `leader ${e.leader} era ${e.era} nonce ${e.nonce} token ${e.token}`;
    case 'members':
      return `members [${e.members.join(' ')}] version ${e.version}`;
    case 'stopped':
      return 'stopped';
  }
}

/** One line of a history as a person reads it: `  1234 ms  n1  role leader (from candidate, confirmed)`. */
export function formatObservation(o: Observation): string {
  return `${String(o.at).padStart(8)} ms  ${o.node}  ${describe(o.event)}`;
}

/**
 * A violation as a person reads it: the rule, the time, what happened, then the lines around it.
 *
 * @example
 * ```text
 * two-leaders at 3120 ms: n2 reported leader at 3120 ms while n1 still reported leader (since 1000 ms): two leaders for 480 ms
 *     3120 ms  n2  role leader (from candidate, confirmed)
 * ```
 */
export function formatViolation(v: Violation): string {
  return [`${v.rule} at ${v.at} ms: ${v.message}`, ...v.around.map(formatObservation)].join('\n');
}
