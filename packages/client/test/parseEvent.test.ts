import { describe, expect, it } from 'vitest';
import { parseEvent } from '../src/internal/parseEvent.js';

const base = { ts: 1732190401002, id: 'web-1' };
const line = (fields: object): string => JSON.stringify({ ...base, ...fields });

describe('parseEvent: the lines of the contract', () => {
  it('reads a role line', () => {
    expect(parseEvent(line({ event: 'role', role: 'leader', previous: 'candidate', reason: 'confirmed' }))).toEqual({
      kind: 'event',
      event: { event: 'role', role: 'leader' },
    });
    expect(parseEvent(line({ event: 'role', role: 'follower', previous: null, reason: 'snapshot' }))).toMatchObject({ kind: 'event' });
  });

  it('reads a leader line, with the token as a bigint beyond 2^53', () => {
    expect(parseEvent(line({ event: 'leader', leader: 'web-2', era: 3, nonce: 1, token: '36028797018963969' }))).toEqual({
      kind: 'event',
      event: { event: 'leader', leader: { id: 'web-2', era: 3, nonce: 1, token: 36028797018963969n } },
    });
  });

  it('reads a leader line of no leader', () => {
    expect(parseEvent(line({ event: 'leader', leader: null, era: null, nonce: null, token: null }))).toEqual({
      kind: 'event',
      event: { event: 'leader', leader: undefined },
    });
  });

  it('reads a members line and a stopped line', () => {
    expect(parseEvent(line({ event: 'members', version: 2, members: ['web-1', 'web-2'], added: ['web-2'], removed: [] }))).toEqual({
      kind: 'event',
      event: { event: 'members', version: 2, members: ['web-1', 'web-2'] },
    });
    expect(parseEvent(line({ event: 'stopped' }))).toEqual({ kind: 'event', event: { event: 'stopped' } });
  });

  it('ignores fields it does not know, and reports event types it does not know as unknown', () => {
    expect(parseEvent(line({ event: 'stopped', exitCode: 0 }))).toEqual({ kind: 'event', event: { event: 'stopped' } });
    expect(parseEvent(line({ event: 'latency', ms: 3 }))).toEqual({ kind: 'unknown', type: 'latency' });
  });
});

describe('parseEvent: anything else is invalid, never thrown', () => {
  it.each([
    ['', 'not JSON'],
    ['{"ts":1,', 'not JSON'],
    ['[1,2]', 'not a JSON object'],
    ['null', 'not a JSON object'],
    ['"role"', 'not a JSON object'],
    [JSON.stringify({ id: 'a', event: 'stopped' }), '`ts`'],
    [JSON.stringify({ ts: '1', id: 'a', event: 'stopped' }), '`ts`'],
    [JSON.stringify({ ts: 1, id: '', event: 'stopped' }), '`id`'],
    [JSON.stringify({ ts: 1, id: 'a', event: 7 }), '`event`'],
    [line({ event: 'role', role: 'king', previous: null, reason: 'x' }), '`role`'],
    [line({ event: 'role', role: 'leader', previous: 'king', reason: 'x' }), '`previous`'],
    [line({ event: 'role', role: 'leader', previous: null }), '`reason`'],
    [line({ event: 'leader', leader: 'a', era: 1, nonce: 0, token: 2047 }), '`token`'],
    [line({ event: 'leader', leader: 'a', era: 1, nonce: 0, token: '-1' }), '`token`'],
    [line({ event: 'leader', leader: 'a', era: 1, nonce: 0, token: '0x10' }), '`token`'],
    [line({ event: 'leader', leader: 'a', era: 1.5, nonce: 0, token: '1' }), '`era`'],
    [line({ event: 'leader', leader: 'a', era: 1, token: '1' }), '`nonce`'],
    [line({ event: 'leader', leader: null, era: 1, nonce: null, token: null }), 'must be null'],
    [line({ event: 'leader', leader: 7, era: 1, nonce: 0, token: '1' }), '`leader`'],
    [line({ event: 'members', version: 1, members: 'a b', added: [], removed: [] }), '`members`'],
    [line({ event: 'members', version: 1, members: ['a', 3], added: [], removed: [] }), '`members`'],
    [line({ event: 'members', version: -1, members: [], added: [], removed: [] }), '`version`'],
    [line({ event: 'members', version: 1, members: [], removed: [] }), '`added`'],
  ])('%s', (text, reason) => {
    const parsed = parseEvent(text);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason).toContain(reason);
  });
});
