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

/** True when a node of `scenario` runs again under an id that ran before (a restart, or a start after a stop or crash). */
function reusesAnId(scenario: Scenario): boolean {
  const ended = new Set<string>();
  for (const s of scenario.steps) {
    if (s.do === 'restart') return true;
    if (s.do === 'start' && ended.has(s.node)) return true;
    if (s.do === 'stop' || s.do === 'crash') ended.add(s.node);
  }
  return false;
}

/** The known issues, open today. */
export const KNOWN_ISSUES: readonly KnownIssue[] = [
  {
    id: 'observer-same-leadership-after-flush',
    title:
      'an observer that followed a leader up to version v ignores the same leader id, era and nonce publishing from version 0 after a flush and a restart, until its version passes v',
    property: 'convergence',
    counterexample: {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n2' },
        { at: 0, do: 'start', node: 'n3', observer: true },
        { at: 15, do: 'start', node: 'n1' },
        { at: 22_020, do: 'crash', node: 'n1' },
        { at: 28_505, do: 'restart', node: 'n2' },
        { at: 28_505, do: 'flush' },
      ],
    },
    covers: (scenario) =>
      scenario.steps.some((s) => s.do === 'start' && s.observer === true) && scenario.steps.some((s) => s.do === 'flush') && reusesAnId(scenario),
  },
];
