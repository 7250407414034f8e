import { describe, expect, it } from 'vitest';

describe('the public API of @roster/follower', () => {
  it('exports exactly these names (widening the API is a deliberate diff)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'MAX_HEADER_BYTES',
      'RosterKeys',
      'bestBroadcast',
      'checkId',
      'checkWeight',
      'compareLeadership',
      'fencingToken',
      'formatBroadcast',
      'formatHeader',
      'formatMember',
      'formatPing',
      'isClaim',
      'isGoodbye',
      'isValidId',
      'parseBroadcast',
      'parseHeader',
      'parseIdKeyValue',
      'parseMember',
      'sameLeadership',
    ]);
  });
});
