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
 * The known issues, open today (the earlier ones are regression tests now:
 * test/regressions.test.ts, test/routing.test.ts).
 */
export const KNOWN_ISSUES: readonly KnownIssue[] = [
  {
    id: 'hidden-claim-masks-live-leader',
    title:
      'a claim written just before its leader nonce became unavailable, seen by some nodes only, ranks above the leader elected meanwhile at the next nonce: followers that track the dead claim stand on its stillness once the nonce is back, and a candidate confirms over the live leader, whose worse leadership it does not track (two leaders for up to an interval)',
    property: 'self-fencing',
    // Found by `pnpm chaos --runs 100000 --seed 20261127` (scenario 61,476); the code before issue 33's work shows it too.
    counterexample: {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 5415, do: 'start', node: 'n1' },
        { at: 5480, do: 'start', node: 'n2' },
        { at: 6675, do: 'start', node: 'n3' },
        { at: 10_485, do: 'keyUnavailable', keys: 'leader 0', forMs: 6295 },
      ],
    },
    // A leader nonce unavailable to everyone for longer than T: long enough for a leader to be
    // confirmed at the next nonce while the claim is hidden.
    covers: (scenario) =>
      scenario.steps.some((s) => (s.do === 'keyUnavailable' || s.do === 'keyRollback') && s.keys.startsWith('leader') && !('node' in s && s.node !== undefined) && s.forMs > scenario.timing.timeoutMs),
  },
];
