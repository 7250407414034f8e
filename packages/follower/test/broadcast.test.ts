import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bestBroadcast,
  compareLeadership,
  fencingToken,
  formatBroadcast,
  formatMember,
  parseBroadcast,
  parseIdKeyValue,
  parseMember,
  type Broadcast,
} from '../src/index.js';

const id = fc.stringMatching(/^[A-Za-z0-9._@-]{1,12}$/);
const member = fc.record({ id, weight: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 1000 })) });
// Eras and nonces also come from tiny ranges, so that two leaderships often share an era and the
// nonce decides between them (with eras drawn from 1 … 2^40 alone, it never does).
const era = fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 ** 40 }));
const nonce = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 1023 }));
const broadcast: fc.Arbitrary<Broadcast> = fc
  .record({
    era,
    nonce,
    version: fc.integer({ min: 1, max: 2 ** 40 }),
    id,
    members: fc.uniqueArray(member, { selector: (m) => m.id, maxLength: 8 }),
  });

describe('the broadcast codec', () => {
  it('formats exactly as `Era Nonce Version Id member…`', () => {
    expect(formatBroadcast({ era: 3, nonce: 1, version: 42, id: 'n1', members: [{ id: 'n1', weight: 1 }, { id: 'n2', weight: 1 }] })).toBe(
      '3 1 42 n1 n1 n2',
    );
    expect(formatBroadcast({ era: 3, nonce: 1, version: 42, id: 'n1', members: [{ id: 'n1', weight: 2 }] })).toBe('3 1 42 n1 n1:2');
  });

  it('parse(format(b)) = b', () => {
    fc.assert(fc.property(broadcast, (b) => {
      const parsed = parseBroadcast(formatBroadcast(b));
      expect(parsed).toEqual({ ok: true, broadcast: b });
    }), { seed: 42 });
  });

  it('refuses anything that is not exactly a broadcast', () => {
    for (const bad of [
      '', '1 0 1', ' 1 0 1 a a', '1 0 1 a a ', '1  0 1 a a', '01 0 1 a a', '1 0 1 a a a', '0 0 1 a a', '-1 0 1 a a',
      '1 1024 1 a a', '1 0 1 a b:0', '1 0 1 a b:x', '1 0 0 a b', '1 0 0 a a b', '1 0 1 a\tb', '1 0 1 a é',
      '99999999999999999 0 1 a a', '1.5 0 1 a a', '1 0 1 a:2 a',
    ]) {
      expect(parseBroadcast(bad).ok, bad).toBe(false);
    }
  });

  it('never throws and never accepts a value that does not round-trip', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (s) => {
      const r = parseBroadcast(s);
      if (r.ok) expect(formatBroadcast(r.broadcast)).toBe(s);
    }), { seed: 7 });
  });

  it('orders leaderships by era desc, then nonce asc, then id: a total order', () => {
    fc.assert(fc.property(broadcast, broadcast, broadcast, (a, b, c) => {
      expect(Math.sign(compareLeadership(a, b))).toBe(-Math.sign(compareLeadership(b, a)));
      if (compareLeadership(a, b) <= 0 && compareLeadership(b, c) <= 0) expect(compareLeadership(a, c)).toBeLessThanOrEqual(0);
    }), { seed: 1 });
    const e2 = { era: 2, nonce: 3, version: 1, id: 'x', members: [] };
    const e1 = { era: 1, nonce: 0, version: 9, id: 'y', members: [] };
    expect(bestBroadcast([e1, e2])).toBe(e2);
  });

  it('within one era the lower nonce is the better leadership, and its fencing token is higher', () => {
    const low = { era: 2, nonce: 0, version: 1, id: 'y', members: [] };
    const high = { era: 2, nonce: 1, version: 7, id: 'x', members: [] };
    expect(compareLeadership(low, high)).toBeLessThan(0);
    expect(bestBroadcast([high, low])).toBe(low);
    expect(fencingToken(low) > fencingToken(high)).toBe(true);
  });

  it('the fencing token grows exactly with leadership rank', () => {
    fc.assert(fc.property(broadcast, broadcast, (a, b) => {
      const c = compareLeadership(a, b);
      if (c < 0 && !(a.era === b.era && a.nonce === b.nonce)) expect(fencingToken(a) > fencingToken(b)).toBe(true);
    }), { seed: 3 });
  });

  it('of two copies of one leadership, the best is the higher version', () => {
    const old = { era: 2, nonce: 0, version: 5, id: 'x', members: [] };
    const fresh = { ...old, version: 6 };
    expect(bestBroadcast([fresh, old])).toBe(fresh);
    expect(bestBroadcast([old, fresh])).toBe(fresh);
  });
});

describe('member and id-key tokens', () => {
  it('parses id and id:weight, refuses the rest', () => {
    expect(parseMember('a')).toEqual({ id: 'a', weight: 1 });
    expect(parseMember('a:4')).toEqual({ id: 'a', weight: 4 });
    for (const bad of ['', ':', 'a:', 'a:0', 'a:01', 'a b', 'x'.repeat(129)]) expect(parseMember(bad)).toBeUndefined();
  });

  it('parses id:weight:priority, a priority written only when not 0, strictly (a malformed one is refused, not taken as 0)', () => {
    expect(parseMember('a:1:2')).toEqual({ id: 'a', weight: 1, priority: 2 });
    expect(parseMember('a:3:1004002')).toEqual({ id: 'a', weight: 3, priority: 1004002 });
    expect(formatMember({ id: 'a', weight: 1, priority: 2 })).toBe('a:1:2');
    expect(formatMember({ id: 'a', weight: 1, priority: 0 })).toBe('a');
    expect(formatMember({ id: 'a', weight: 2 })).toBe('a:2');
    for (const bad of ['a:1:0', 'a:1:', 'a::2', 'a:1:-2', 'a:1:02', 'a:1:2:3', 'a:1:1e3', 'a:1:1000000000000']) expect(parseMember(bad), bad).toBeUndefined();
    // A broadcast listing one is garbage as a whole, as for any other bad member.
    expect(parseBroadcast('3 0 7 a a:1:2 b:1:x').ok).toBe(false);
    expect(parseBroadcast('3 0 7 a a:1:2 b').ok).toBe(true);
  });

  it('parses PING, PONG and LEAVE only', () => {
    expect(parseIdKeyValue('PING 3')).toEqual({ kind: 'ping', seq: 3 });
    expect(parseIdKeyValue('PONG 3')).toEqual({ kind: 'pong', seq: 3 });
    expect(parseIdKeyValue('LEAVE')).toEqual({ kind: 'leave' });
    for (const bad of ['PING', 'PING -1', 'ping 1', 'PONG 01', 'LEAVE ', 'x']) expect(parseIdKeyValue(bad)).toBeUndefined();
  });
});
