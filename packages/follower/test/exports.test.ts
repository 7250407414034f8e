import { describe, expect, it } from 'vitest';

describe('the public API of @roster/follower', () => {
  it('exports exactly these names (widening the API is a deliberate diff)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'ListCache',
      'MAX_HEADER_BYTES',
      'MAX_PRIORITY',
      'RosterKeys',
      'bestBroadcast',
      'checkId',
      'checkPriority',
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
      'newId',
      'parseBroadcast',
      'parseHeader',
      'parseIdKeyValue',
      'parseMember',
      'priorityFromVersion',
      'sameLeadership',
      'sameMember',
    ]);
  });

  it('the internal entry exports exactly what @roster/election composes a node from', async () => {
    expect(Object.keys(await import('../src/internal.js')).sort()).toEqual([
      'Following',
      'Joiner',
      'LeaderWindow',
      'Pace',
      'Pinger',
      'Rivals',
      'Staleness',
      'coversBelow',
      'diffLists',
      'formatListStep',
      'listIdOf',
      'nextVersion',
      'readEveryNonce',
      'sameListId',
      'sameMembers',
      'showsNothingNewer',
      'showsUnchanged',
      'supersedes',
      'watchRoundTrips',
    ]);
  });

  it('the package resolves the internal subpath to its built entry, apart from the main entry', async () => {
    const internal = await import('@roster/follower/internal');
    expect(typeof internal.Following).toBe('function');
    expect('Following' in (await import('@roster/follower'))).toBe(false);
  });
});
