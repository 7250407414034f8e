import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/primary', () => {
  it('exports exactly the contender, the table, the resolver, its error and the role-type check', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'HeartbeatTable',
      'PrimaryContender',
      'PrimaryLostError',
      'PrimaryResolver',
      'checkUtype',
    ]);
  });
});
