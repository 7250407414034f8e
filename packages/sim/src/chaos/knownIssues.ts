import type { PropertyName } from '../properties/Property.js';
import { losesData } from '../scenario/analysis.js';
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
 * An observer remembers the best leadership it has seen and never goes back to a worse one. When
 * the store loses its data and the nodes that knew the old era are gone, the new leader's
 * leadership can rank below the remembered one (same era and nonce, higher id; or a lower era),
 * and an observer, which never stands for election, ignores it for good.
 */
export const observerAfterDataLoss: KnownIssue = {
  id: 'observer-after-data-loss',
  title: 'after the store loses its data, an observer can ignore the new leader forever (it remembers a better leadership that no longer exists)',
  property: 'convergence',
  counterexample: {
    seed: 0,
    timing,
    steps: [
      { at: 0, do: 'start', node: 'n1', observer: true },
      { at: 0, do: 'start', node: 'n2' },
      { at: 5005, do: 'stop', node: 'n2' },
      { at: 6005, do: 'flush' },
      { at: 6295, do: 'start', node: 'n3' },
    ],
  },
  covers: (s) => losesData(s) && s.steps.some((step) => step.do === 'start' && step.observer === true),
};

/**
 * A follower whose id key moved to another nonce (its nonce 0 was unavailable) and that then stops
 * gracefully leaves `LEAVE` at that nonce. When a node with the same id starts again (at nonce 0),
 * the leader's PONG worker, which scans every nonce on its first round, finds the old `LEAVE` and
 * removes it, again after each rejoin: it never stays a member.
 */
export const staleLeave: KnownIssue = {
  id: 'stale-leave',
  title: 'a LEAVE left at another nonce of its id key by a stopped node makes the leader remove the restarted node again and again',
  property: 'no-member-lost',
  counterexample: {
    seed: 0,
    timing,
    steps: [
      { at: 0, do: 'start', node: 'n1' },
      { at: 0, do: 'start', node: 'n2' },
      { at: 0, do: 'keyUnavailable', keys: 'id/n1 0', forMs: 5 },
      { at: 5, do: 'stop', node: 'n1' },
      { at: 5, do: 'restart', node: 'n1' },
    ],
  },
  covers: (s) =>
    s.steps.some(
      (u) =>
        u.do === 'keyUnavailable' &&
        s.steps.some(
          (stop) =>
            stop.do === 'stop' &&
            stop.at >= u.at &&
            namesIdKeyOf(u.keys, stop.node) &&
            s.steps.some((again) => (again.do === 'start' || again.do === 'restart') && again.node === stop.node && again.at >= stop.at),
        ),
    ),
};

/**
 * The era lives only in the store. When the key holding the highest era is unavailable to every
 * node and no live node remembers that era (the node that led restarted), the next candidate
 * claims a lower or equal era at another nonce and leads with a fencing token below its
 * predecessor's; when the key comes back, the old broadcast ranks first and dethrones it.
 */
export const eraHiddenByUnavailability: KnownIssue = {
  id: 'era-hidden-by-unavailability',
  title: 'a node that starts while the leader key holding the highest era is unavailable can lead with a lower fencing token than its predecessor',
  property: 'monotonic',
  counterexample: {
    seed: 0,
    timing,
    steps: [
      { at: 4980, do: 'start', node: 'n1' },
      { at: 10_485, do: 'keyUnavailable', keys: 'leader 0', forMs: 5505 },
      { at: 10_485, do: 'restart', node: 'n1' },
    ],
  },
  covers: (s) =>
    s.steps.some(
      (u) =>
        u.do === 'keyUnavailable' &&
        u.keys.startsWith('leader ') &&
        s.steps.some((x) => (x.do === 'start' || x.do === 'restart') && x.at >= u.at && x.at <= u.at + u.forMs),
    ),
};

/** The known issues, open today. */
export const KNOWN_ISSUES: readonly KnownIssue[] = [observerAfterDataLoss, staleLeave, eraHiddenByUnavailability];
