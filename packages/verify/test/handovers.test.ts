import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory, type Observation } from '../src/index.js';
import { history, leader, role } from './support/histories.js';

const nodes = ['n1', 'n2', 'n3'];

/** Leaderships one after another: each `[node, gap before it, length]`; the next begins `gap` ms (≥ 0) after the last ended. */
const handovers = fc.array(fc.tuple(fc.constantFrom(...nodes), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2000 })), { minLength: 2, maxLength: 12 });

function lines(plan: readonly [string, number, number][]): { observations: Observation[]; spans: { node: string; from: number; to: number }[] } {
  const observations: Observation[] = [];
  const spans: { node: string; from: number; to: number }[] = [];
  let at = 0;
  plan.forEach(([node, gap, length], k) => {
    const from = at + gap;
    const to = from + length;
    // Ends are listed before starts of the same ms only by chance: the real order within a ms means nothing.
    observations.push(role(from, node, 'leader', 'candidate', 'confirmed'), leader(from, node, node, k + 1, 0), role(to, node, 'follower', 'leader', 'resigned'));
    spans.push({ node, from, to });
    at = to;
  });
  return { observations, spans };
}

describe('generated hand-overs', () => {
  it('leaderships one after another, tokens rising, never break two-leaders nor token-order', () => {
    fc.assert(
      fc.property(handovers, (plan) => {
        const { observations } = lines(plan);
        expect(checkHistory(history(observations, { end: 100_000 }), { rules: ['two-leaders', 'token-order'] }).violations).toEqual([]);
      }),
      { seed: 32, numRuns: 300 },
    );
  });

  it('another node reporting leader inside any leadership of positive length is caught, at the instant it began', () => {
    fc.assert(
      fc.property(handovers, fc.nat(), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (plan, pick, where) => {
        const { observations, spans } = lines(plan);
        const long = spans.filter((s) => s.to > s.from);
        fc.pre(long.length > 0);
        const span = long[pick % long.length]!;
        const at = span.from + Math.floor(where * (span.to - span.from));
        const intruder = nodes.find((n) => n !== span.node)!;
        const violations = checkHistory(history([...observations, role(at, intruder, 'leader', 'candidate', 'confirmed')], { end: 100_000 }), { rules: ['two-leaders'] }).violations;
        expect(violations.some((v) => v.at === at && v.message.includes(intruder) && v.message.includes(span.node))).toBe(true);
      }),
      { seed: 32, numRuns: 300 },
    );
  });
});
