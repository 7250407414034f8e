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

/** The known issues, open today. */
export const KNOWN_ISSUES: readonly KnownIssue[] = [
  {
    id: 'era-hidden-by-two-keys',
    title:
      'with the leader key\'s nonce and every nonce of the era key unavailable, a restarted node that remembers no era claims the era already held, at the next nonce, and leads with a lower fencing token',
    property: 'monotonic',
    counterexample: {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 10_000, do: 'keyUnavailable', keys: 'leader 0', forMs: 20_000 },
        { at: 10_000, do: 'keyUnavailable', keys: 'era *', forMs: 20_000 },
        { at: 10_000, do: 'restart', node: 'n1' },
      ],
    },
    covers: (scenario) => scenario.steps.some((s) => (s.do === 'keyUnavailable' || s.do === 'keyRollback') && s.keys === 'era *'),
  },
];
