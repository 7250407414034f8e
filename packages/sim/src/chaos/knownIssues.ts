import type { PropertyName } from '../properties/Property.js';
import type { Scenario } from '../scenario/Scenario.js';

/**
 * A protocol bug the simulator found and that is not fixed yet. Chaos runs skip the scenarios
 * that may show it (so that they keep looking for new bugs), and `test/knownIssues.test.ts` keeps
 * its smallest counterexample failing until the fix lands.
 */
export interface KnownIssue {
  /** Short name, e.g. `observer-after-data-loss`. */
  readonly id: string;
  /** What goes wrong, in one sentence. */
  readonly title: string;
  /** The property it breaks. */
  readonly property: PropertyName;
  /** The smallest scenario known to show it. */
  readonly counterexample: Scenario;
  /** True for the scenarios that may show it (the ones chaos runs skip). */
  covers(scenario: Scenario): boolean;
}

/**
 * The known issues, open today: none (the earlier ones are regression tests now:
 * test/regressions.test.ts, test/routing.test.ts).
 */
export const KNOWN_ISSUES: readonly KnownIssue[] = [];
