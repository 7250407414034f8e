import { describe, expect, it } from 'vitest';

describe('the public API of @roster/election', () => {
  it('exports exactly these names (widening the API is a deliberate diff)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'LeadershipLostError',
      'ListCache',
      'MAX_PRIORITY',
      'NodeStateError',
      'checkNodeOptions',
      'createNode',
      'fencingToken',
      'priorityFromVersion',
    ]);
  });
});
