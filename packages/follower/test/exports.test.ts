import { describe, expect, it } from 'vitest';

describe('the public API of @roster/follower', () => {
  it('exports exactly these names (widening the API is a deliberate diff)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'Joiner',
      'LeaderWindow',
      'Pinger',
      'RosterKeys',
      'Staleness',
      'Ticker',
      'bestBroadcast',
      'checkId',
      'checkWeight',
      'compareLeadership',
      'coversBelow',
      'fencingToken',
      'formatBroadcast',
      'formatMember',
      'isClaim',
      'isGoodbye',
      'isValidId',
      'nextVersion',
      'parseBroadcast',
      'parseIdKeyValue',
      'parseMember',
      'readEveryNonce',
      'sameLeadership',
      'sameMembers',
      'supersedes',
    ]);
  });
});
