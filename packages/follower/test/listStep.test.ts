import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Member } from '../src/ids.js';
import { applyListStep, diffLists, formatListStep, parseListStep, type ListId } from '../src/listStep.js';

const from: ListId = { era: 3, nonce: 1, id: 'a', epoch: 4 };
const to: ListId = { era: 3, nonce: 1, id: 'a', epoch: 5 };
const m = (id: string, weight = 1): Member => ({ id, weight });
/** A leader's list: the leader first, then the others by id. */
const leaderList = (leader: string, others: readonly Member[]): Member[] => [m(leader), ...[...others].filter((o) => o.id !== leader).sort((x, y) => (x.id < y.id ? -1 : 1))];

const memberArb = fc.record({ id: fc.stringMatching(/^[a-z]{1,3}$/), weight: fc.constantFrom(1, 1, 1, 2, 7) });
const listArb = fc.uniqueArray(memberArb, { selector: (x) => x.id, maxLength: 60 });

describe('list steps', () => {
  it('build exactly the new list from the old one, through their stored text (any two lists)', () => {
    fc.assert(
      fc.property(listArb, listArb, (a, b) => {
        const step = diffLists(from, a, to, b);
        if (step === undefined) return; // larger than half the list: followers read it whole
        const parsed = parseListStep(formatListStep(step));
        expect(parsed).toEqual(step);
        expect(applyListStep(a, parsed!)).toEqual(b);
      }),
      { numRuns: 2000 },
    );
  });

  it('are small for a few joins and leaves, and for a new leader that takes over a list', () => {
    const others = Array.from({ length: 1000 }, (_, i) => m(`n${String(i).padStart(4, '0')}`));
    const before = leaderList('n0000', others);
    const joined = leaderList('n0000', [...others.filter((o) => o.id !== 'n0500'), m('x1'), m('x2')]);
    const step = diffLists(from, before, to, joined)!;
    expect(step.removed).toEqual(['n0500']);
    expect(step.added.map((a) => a.member.id)).toEqual(['x1', 'x2']);
    expect(formatListStep(step).length).toBeLessThan(60);
    // A new leader lists itself first and drops the one it replaced: two removals, one addition.
    const next = leaderList('n0007', others.filter((o) => o.id !== 'n0000'));
    const takeover = diffLists(from, before, { era: 4, nonce: 0, id: 'n0007', epoch: 1 }, next)!;
    expect([...takeover.removed].sort()).toEqual(['n0000', 'n0007']);
    expect(takeover.added).toEqual([{ index: 0, member: m('n0007') }]);
    expect(applyListStep(before, takeover)).toEqual(next);
  });

  it('are not written when larger than half of the new list', () => {
    expect(diffLists(from, [m('a'), m('b')], to, [m('c'), m('d')])).toBeUndefined();
  });

  it('carry weight changes as a removal and an addition', () => {
    const step = diffLists(from, [m('a'), m('b'), m('c'), m('d')], to, [m('a'), m('b', 4), m('c'), m('d')])!;
    expect(formatListStep(step)).toBe('3 1 a 5 3 1 a 4 4 -b +1:b:4');
  });

  it('refuse a step that does not fit the list they are applied to: the reader reads the whole list', () => {
    const base = [m('a'), m('b'), m('c')];
    const apply = (text: string) => applyListStep(base, parseListStep(text)!);
    expect(apply('3 1 a 5 3 1 a 4 3 -z +0:y')).toBeUndefined(); // removes an id the list lacks
    expect(apply('3 1 a 5 3 1 a 4 4 +0:b')).toBeUndefined(); // adds an id already kept
    expect(apply('3 1 a 5 3 1 a 4 5 +0:x')).toBeUndefined(); // count does not add up
    expect(parseListStep('3 1 a 5 3 1 a 4 4 +0:x +0:y')).toBeUndefined();
    expect(apply('3 1 a 5 3 1 a 4 5 -a +1:x +2:x')).toBeUndefined(); // the same id added twice
    expect(apply('3 1 a 5 3 1 a 4 3 -a +2:a:2')).toEqual([m('b'), m('c'), m('a', 2)]);
  });

  it('parse strictly: anything else is no step at all', () => {
    for (const bad of ['', '3 1 a 5', '3 1 a 5 3 1 a 4 x', '3 1 a 5 3 1 a 4 2 *b', '3 1 a 5 3 1 a 4 2 +2:b', '3 1 a 5 3 1 a 4 2 +1:b +0:c', '3 1 a 5 3 1 a 4 2 +1:b -c', '3 1 a 5 3 1 a 4 2 -b:2', '03 1 a 5 3 1 a 4 2', '3 1 a b 5 3 1 a 4 2', `3 1 a 5 3 1 a 4 ${'9'.repeat(17)}`, '3 1 a 5 3 1 a 4 2 -', '3 1 a 5 3 1 a 4 2 +:b']) {
      expect(parseListStep(bad), bad).toBeUndefined();
    }
  });
});
