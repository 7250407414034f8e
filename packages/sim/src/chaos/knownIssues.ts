import type { PropertyName } from '../properties/Property.js';
import { stepEnd } from '../scenario/analysis.js';
import { namesIdKeyOf } from '../scenario/keys.js';
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

const timing = { intervalMs: 1000, timeoutMs: 5000 };

/**
 * A node paused for longer than T resumes with a stale view: the broadcast it tracked has been
 * "still" since before the pause, because it did not look. It stands at once, claims, and
 * confirms after the settle time if its reads still miss the current leader (that leader's key
 * unavailable to every node for a moment): two leaders until the old one reads the claim. Shared
 * views, no data loss. The candidate's "every other broadcast still for T" counted time in which
 * it read nothing.
 */
export const blindAfterPause: KnownIssue = {
  id: 'blind-after-pause',
  title: 'a node resumed from a pause longer than T can confirm a claim while the leader it did not see still leads',
  property: 'self-fencing',
  counterexample: {
    seed: 0,
    timing,
    steps: [
      { at: 0, do: 'start', node: 'n2' },
      { at: 100, do: 'start', node: 'n1' },
      { at: 6000, do: 'pause', node: 'n1', forMs: 9800 },
      { at: 15_800, do: 'keyUnavailable', keys: 'leader 0', forMs: 600 },
    ],
  },
  covers: (s) =>
    s.steps.some(
      (p) =>
        p.do === 'pause' &&
        p.forMs >= s.timing.timeoutMs - s.timing.intervalMs &&
        s.steps.some(
          (k) => k.do === 'keyUnavailable' && k.keys.startsWith('leader ') && k.at <= p.at + p.forMs + s.timing.intervalMs && stepEnd(k) >= p.at + p.forMs,
        ),
    ),
};

/**
 * A member whose id key moved (its nonce was unavailable) can leave unanswered PINGs at two
 * nonces when it dies. A leader that (re)admits it later (inherited list, or a dethroned leader's
 * hand-over in the join key) finds one on its first round, and the other when it rescans every
 * nonce after T/2 without news: a different sequence number, so a "fresh" PING. The dead member
 * stays listed T/2 longer than docs/protocol.md's T + 2I, and convergence after a failover takes
 * longer than 2T + 4I.
 */
export const stalePingAtAnotherNonce: KnownIssue = {
  id: 'stale-ping-at-another-nonce',
  title: "a dead member's leftover PING at another nonce of its id key counts as a fresh PING, and keeps it listed past T + 2I",
  property: 'convergence',
  counterexample: {
    seed: 0,
    timing,
    steps: [
      { at: 3165, do: 'start', node: 'n2' },
      { at: 4920, do: 'start', node: 'n1' },
      { at: 15_925, do: 'keyUnavailable', keys: 'id/n1 *', forMs: 4745, stallMs: 188 },
      { at: 20_925, do: 'crash', node: 'n1' },
    ],
  },
  covers: (s) =>
    s.steps.some(
      (k) =>
        k.do === 'keyUnavailable' &&
        s.steps.some((c) => (c.do === 'crash' || c.do === 'restart') && c.at >= k.at && namesIdKeyOf(k.keys, c.node)),
    ),
};

/** The known issues, open today. */
export const KNOWN_ISSUES: readonly KnownIssue[] = [blindAfterPause, stalePingAtAnotherNonce];
