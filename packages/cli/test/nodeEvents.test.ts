import { describe, expect, it } from 'vitest';
import { describeNodeEvent, formatJsonEvent, toNodeEvent } from '../src/node/nodeEvents.js';

describe('roster node --json lines', () => {
  it('a leader update carries the fencing token as a decimal string, exact beyond 2^53', () => {
    const token = 2n ** 60n + 7n;
    const event = toNodeEvent('a', { type: 'leader', leader: { id: 'b', era: 3, nonce: 1, token }, previous: undefined }, 1000);
    expect(formatJsonEvent(event!)).toBe('{"ts":1000,"id":"a","event":"leader","leader":"b","era":3,"nonce":1,"token":"1152921504606846983"}');
  });

  it('no leader is every leader field null', () => {
    const event = toNodeEvent('a', { type: 'leader', leader: undefined, previous: undefined }, 1);
    expect(event).toEqual({ ts: 1, id: 'a', event: 'leader', leader: null, era: null, nonce: null, token: null });
  });

  it('members are ids, with what was added and removed', () => {
    const event = toNodeEvent(
      'a',
      { type: 'members', version: 9, members: [{ id: 'a', weight: 1 }, { id: 'c', weight: 4 }], added: ['c'], removed: ['b'] },
      1,
    );
    expect(event).toEqual({ ts: 1, id: 'a', event: 'members', version: 9, members: ['a', 'c'], added: ['c'], removed: ['b'] });
    expect(describeNodeEvent(event!)).toBe('members v9 [a c] +c -b');
  });

  it('role changes keep the previous role and the reason; goodbye is not a line', () => {
    expect(toNodeEvent('a', { type: 'role', role: 'leader', previous: 'candidate', reason: 'confirmed' }, 1)).toEqual({
      ts: 1,
      id: 'a',
      event: 'role',
      role: 'leader',
      previous: 'candidate',
      reason: 'confirmed',
    });
    expect(toNodeEvent('a', { type: 'goodbye', leader: { id: 'b', era: 1, nonce: 0, token: 1n } }, 1)).toBeUndefined();
    expect(toNodeEvent('a', { type: 'stopped' }, 1)).toEqual({ ts: 1, id: 'a', event: 'stopped' });
  });
});
