import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeBalance } from '../src/index.js';

const SEED = Number(process.env.FC_SEED ?? 20_020);

describe('computeBalance', () => {
  it("gives the seed's example: node1 ×2, node2 ×1, node3 ×4 hold 0, 2 and 3 of 7", () => {
    const members = [
      { id: 'node3', weight: 4 },
      { id: 'node1', weight: 2 },
      { id: 'node2', weight: 1 },
    ];
    expect(computeBalance(members, 'node1')).toEqual({
      index: 0,
      total: 7,
      instances: [
        { id: 'node1', threads: 2, index: 0 },
        { id: 'node2', threads: 1, index: 2 },
        { id: 'node3', threads: 4, index: 3 },
      ],
    });
    expect(computeBalance(members, 'node2').index).toBe(2);
    expect(computeBalance(members, 'node3').index).toBe(3);
  });

  it('gives −1 to an instance that is not a member, and the total of the others', () => {
    expect(computeBalance([{ id: 'a', weight: 3 }], 'b')).toMatchObject({ index: -1, total: 3 });
    expect(computeBalance([], 'b')).toEqual({ index: -1, total: 0, instances: [] });
  });

  it('counts a repeated id once', () => {
    expect(computeBalance([{ id: 'a', weight: 2 }, { id: 'a', weight: 5 }, { id: 'b', weight: 1 }], 'b')).toMatchObject({ index: 2, total: 3 });
  });

  it('sorts by code unit, as the broadcast does (upper case before lower case)', () => {
    const r = computeBalance([{ id: 'b', weight: 1 }, { id: 'B', weight: 1 }, { id: 'a', weight: 1 }], 'a');
    expect(r.instances.map((i) => i.id)).toEqual(['B', 'a', 'b']);
  });

  it('property: the ranges [index, index + threads) are disjoint, cover 0 … total − 1, and do not depend on the order given', () => {
    const member = fc.record({ id: fc.stringMatching(/^[A-Za-z0-9._@-]{1,12}$/), weight: fc.integer({ min: 1, max: 1000 }) });
    const members = fc.uniqueArray(member, { selector: (m) => m.id, maxLength: 40 });
    fc.assert(
      fc.property(members, fc.nat(), (list, rotate) => {
        const total = list.reduce((sum, m) => sum + m.weight, 0);
        const covered = new Array<number>(total).fill(0);
        const shuffled = list.map((_, i) => list[(i + rotate) % list.length]!);
        for (const m of list) {
          const r = computeBalance(list, m.id);
          expect(r.total).toBe(total);
          expect(computeBalance(shuffled, m.id)).toEqual(r);
          expect(r.index).toBeGreaterThanOrEqual(0);
          for (let k = r.index; k < r.index + m.weight; k++) covered[k] = covered[k]! + 1;
        }
        expect(covered.every((c) => c === 1)).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
