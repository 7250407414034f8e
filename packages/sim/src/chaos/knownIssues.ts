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

/** The stale routing tables of `scenario`: which node's table hides which keys. */
function staleTables(scenario: Scenario): { node: string; keys: string }[] {
  return scenario.steps.flatMap((s) => (s.do === 'staleRouting' ? [{ node: s.node, keys: s.keys }] : []));
}

/** The known issues, open today. */
export const KNOWN_ISSUES: readonly KnownIssue[] = [
  {
    id: 'moved-nonce-unread',
    title:
      "a leader whose own stale routing table hid its nonce publishes at the next one; a follower whose table hides that next nonce still reads the leader's frozen broadcast at the first, stands on its stillness though the leader PONGs it, and leads beside it",
    property: 'routing-tolerance',
    counterexample: {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 130, do: 'start', node: 'n2' },
        { at: 10_000, do: 'staleRouting', node: 'n1', keys: 'leader 0', forMs: 10_000 },
        { at: 10_000, do: 'staleRouting', node: 'n2', keys: 'leader 1', forMs: 10_000 },
      ],
    },
    // Two nodes' tables hiding two different nonces of the leader key.
    covers: (scenario) => {
      const hidden = staleTables(scenario).filter((t) => /^leader \d+$/.test(t.keys));
      return hidden.some((a) => hidden.some((b) => a.node !== b.node && a.keys !== b.keys));
    },
  },
  {
    id: 'relisted-unseen',
    title:
      "a follower dropped while the leader's stale routing table hid its id key, that then cannot read the leader's nonce, never sees itself listed again: it stands on the stillness though the leader, which took its join, PONGs it",
    property: 'routing-tolerance',
    counterexample: {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 130, do: 'start', node: 'n2' },
        { at: 10_000, do: 'staleRouting', node: 'n1', keys: 'id/n2 *', forMs: 6000 },
        { at: 16_200, do: 'staleRouting', node: 'n2', keys: 'leader 0', forMs: 10_000 },
      ],
    },
    // One node's table hiding another's id key, and that other's hiding the leader key.
    covers: (scenario) => {
      const tables = staleTables(scenario);
      return tables.some((a) => a.keys.startsWith('id/') && tables.some((b) => a.keys.startsWith(`id/${b.node} `) && b.keys.startsWith('leader ')));
    },
  },
];
