import { describe, expect, it } from 'vitest';
import { Membership } from '../src/Membership.js';

const self = { id: 'leader', weight: 2 };

describe('Membership: the leader’s list of active members', () => {
  it('always lists the leader first, then the others sorted by id', () => {
    const m = new Membership(self, 0, [{ id: 'c', weight: 1 }, { id: 'b', weight: 3 }]);
    expect(m.list()).toEqual([self, { id: 'b', weight: 3 }, { id: 'c', weight: 1 }]);
    expect(m.followerIds().sort()).toEqual(['b', 'c']);
  });

  it('never takes the leader in as a follower, inherited or joining', () => {
    const m = new Membership(self, 0, [{ id: 'leader', weight: 9 }]);
    expect(m.admit([{ id: 'leader', weight: 9 }], 0)).toEqual([]);
    expect(m.list()).toEqual([self]);
    expect(m.has('leader')).toBe(false);
  });

  it('admitting returns only the ids that are new, and updates the weight of known ones', () => {
    const m = new Membership(self, 0, [{ id: 'a', weight: 1 }]);
    expect(m.admit([{ id: 'a', weight: 5 }, { id: 'b', weight: 1 }], 10)).toEqual(['b']);
    expect(m.list()).toContainEqual({ id: 'a', weight: 5 });
  });

  it('drops a member whose PINGs stopped for more than T, and not one that PINGed within T', () => {
    const T = 500;
    const m = new Membership(self, 0, [{ id: 'quiet', weight: 1 }, { id: 'alive', weight: 1 }]);
    m.pinged('alive', 400);
    expect(m.dropSilent(T, T)).toEqual([]);
    expect(m.dropSilent(T + 1, T)).toEqual(['quiet']);
    expect(m.has('alive')).toBe(true);
    expect(m.dropSilent(900, T)).toEqual([]);
    expect(m.dropSilent(901, T)).toEqual(['alive']);
  });

  it('a joiner’s PING clock starts at its admission; a PING from a non-member is ignored', () => {
    const m = new Membership(self, 0);
    m.pinged('stranger', 100);
    expect(m.has('stranger')).toBe(false);
    m.admit([{ id: 'j', weight: 1 }], 1000);
    expect(m.dropSilent(1500, 500)).toEqual([]);
    expect(m.dropSilent(1501, 500)).toEqual(['j']);
  });

  it('removing says whether the id was a member', () => {
    const m = new Membership(self, 0, [{ id: 'a', weight: 1 }]);
    expect(m.remove('a')).toBe(true);
    expect(m.remove('a')).toBe(false);
  });
});
