import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DaemonLeader, DaemonUpdate } from '../src/DaemonUpdate.js';
import { DaemonView } from '../src/internal/DaemonView.js';

const leader = (id: string, era: number, token: bigint = BigInt(era) * 2048n): DaemonLeader => ({ id, era, nonce: 0, token });

/** The member list `updates` lead to from `before`. */
function replay(before: readonly string[], updates: readonly DaemonUpdate[]): string[] {
  const set = new Set(before);
  for (const u of updates) {
    if (u.type === 'add') set.add(u.id);
    if (u.type === 'delete') set.delete(u.id);
  }
  return [...set].sort();
}

describe('DaemonView: members', () => {
  it('a first list gives one add per member, in id order', () => {
    const view = new DaemonView();
    expect(view.apply({ event: 'members', version: 1, members: ['b', 'a'] })).toEqual([
      { type: 'add', id: 'a' },
      { type: 'add', id: 'b' },
    ]);
    expect(view.members).toEqual(['a', 'b']);
  });

  it('a changed list gives the deletes, then the adds; the same list again gives nothing', () => {
    const view = new DaemonView();
    view.apply({ event: 'members', version: 1, members: ['a', 'b', 'c'] });
    expect(view.apply({ event: 'members', version: 2, members: ['a', 'c', 'd'] })).toEqual([
      { type: 'delete', id: 'b' },
      { type: 'add', id: 'd' },
    ]);
    expect(view.apply({ event: 'members', version: 9, members: ['a', 'c', 'd'] })).toEqual([]);
  });

  it('property: the updates of each list turn the previous list into it, and say nothing more', () => {
    const ids = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(ids, { minLength: 1, maxLength: 12 }), (lists) => {
        const view = new DaemonView();
        let known: string[] = [];
        for (const [version, list] of lists.entries()) {
          const updates = view.apply({ event: 'members', version, members: list });
          expect(replay(known, updates)).toEqual([...list].sort());
          // No update is redundant: each add is new, each delete was there.
          for (const u of updates) {
            if (u.type === 'add') expect(known).not.toContain(u.id);
            if (u.type === 'delete') expect(known).toContain(u.id);
          }
          known = [...list].sort();
          expect(view.members).toEqual(known);
        }
      }),
      { seed: 20_001, verbose: true },
    );
  });
});

describe('DaemonView: leader and goodbye', () => {
  it('the first leader is a leader update alone', () => {
    const view = new DaemonView();
    expect(view.apply({ event: 'leader', leader: leader('a', 1) })).toEqual([{ type: 'leader', leader: leader('a', 1) }]);
  });

  it('another leader: goodbye to the old one, then the new one', () => {
    const view = new DaemonView();
    view.apply({ event: 'leader', leader: leader('a', 1) });
    expect(view.apply({ event: 'leader', leader: leader('b', 2) })).toEqual([
      { type: 'goodbye', leader: leader('a', 1) },
      { type: 'leader', leader: leader('b', 2) },
    ]);
    expect(view.leader).toEqual(leader('b', 2));
  });

  it('no leader any more (it resigned): goodbye, then a leader update of none; a leader after that has no goodbye', () => {
    const view = new DaemonView();
    view.apply({ event: 'leader', leader: leader('a', 1) });
    expect(view.apply({ event: 'leader', leader: undefined })).toEqual([
      { type: 'goodbye', leader: leader('a', 1) },
      { type: 'leader', leader: undefined },
    ]);
    expect(view.apply({ event: 'leader', leader: leader('b', 2) })).toEqual([{ type: 'leader', leader: leader('b', 2) }]);
  });

  it('the same node in a new era: a leader update without goodbye; the same leadership again: nothing', () => {
    const view = new DaemonView();
    view.apply({ event: 'leader', leader: leader('a', 1) });
    expect(view.apply({ event: 'leader', leader: leader('a', 2) })).toEqual([{ type: 'leader', leader: leader('a', 2) }]);
    expect(view.apply({ event: 'leader', leader: leader('a', 2) })).toEqual([]);
    expect(view.apply({ event: 'leader', leader: undefined })).toHaveLength(2);
    expect(view.apply({ event: 'leader', leader: undefined })).toEqual([]);
  });
});

describe('DaemonView: role and the end of a stream', () => {
  it('a role update only when the role changes; stopped changes nothing', () => {
    const view = new DaemonView();
    expect(view.apply({ event: 'role', role: 'follower' })).toEqual([{ type: 'role', role: 'follower' }]);
    expect(view.apply({ event: 'role', role: 'follower' })).toEqual([]);
    expect(view.apply({ event: 'role', role: 'leader' })).toEqual([{ type: 'role', role: 'leader' }]);
    expect(view.apply({ event: 'stopped' })).toEqual([]);
    expect(view.role).toBe('leader');
  });

  it('a snapshot after a reconnection yields only what changed meanwhile', () => {
    const view = new DaemonView();
    for (const event of [
      { event: 'role', role: 'follower' },
      { event: 'leader', leader: leader('a', 1) },
      { event: 'members', version: 5, members: ['a', 'b', 'c'] },
    ] as const) view.apply(event);
    // The daemon restarted; its snapshot:
    const updates = [
      { event: 'role', role: 'follower' },
      { event: 'leader', leader: leader('a', 1) },
      { event: 'members', version: 1, members: ['a', 'b', 'd'] },
    ].flatMap((event) => view.apply(event as Parameters<DaemonView['apply']>[0]));
    expect(updates).toEqual([
      { type: 'delete', id: 'c' },
      { type: 'add', id: 'd' },
    ]);
  });
});
