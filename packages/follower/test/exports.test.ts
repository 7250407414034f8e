import { describe, expect, it } from 'vitest';

describe('the public API of @roster/follower', () => {
  it('exports exactly these names (widening the API is a deliberate diff)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'Joiner',
      'LeaderWindow',
      'ListCache',
      'Pinger',
      'RosterKeys',
      'Staleness',
      'Ticker',
      'applyListStep',
      'bestBroadcast',
      'checkId',
      'checkWeight',
      'compareLeadership',
      'coversBelow',
      'diffLists',
      'expectedValue',
      'fencingToken',
      'formatBroadcast',
      'formatHeader',
      'formatListStep',
      'formatMember',
      'isClaim',
      'isGoodbye',
      'isValidId',
      'listIdOf',
      'nextVersion',
      'parseBroadcast',
      'parseHeader',
      'parseIdKeyValue',
      'parseListStep',
      'parseMember',
      'readEveryNonce',
      'sameLeadership',
      'sameListId',
      'sameMembers',
      'supersedes',
    ]);
  });
});
