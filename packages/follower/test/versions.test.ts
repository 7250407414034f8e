import { describe, expect, it } from 'vitest';
import { nextVersion, supersedes } from '../src/versions.js';

describe('what is news at the leader key', () => {
  it('news is a better leadership or a later version of the same one, never an older one', () => {
    const known = { era: 2, nonce: 1, version: 5, id: 'x', members: [] };
    expect(supersedes(known, undefined)).toBe(true);
    expect(supersedes({ ...known, version: 6 }, known)).toBe(true);
    expect(supersedes({ ...known, version: 5 }, known)).toBe(false);
    expect(supersedes({ ...known, version: 4 }, known)).toBe(false);
    expect(supersedes({ ...known, era: 3, version: 0 }, known)).toBe(true);
    expect(supersedes({ ...known, nonce: 0, version: 1 }, known)).toBe(true);
    expect(supersedes({ ...known, era: 1, version: 99 }, known)).toBe(false);
  });


  it('a Version jumps to the next multiple of 1000 when the member list changed, and adds 1 otherwise', () => {
    expect(nextVersion(0, false)).toBe(1);
    expect(nextVersion(1, true)).toBe(1000);
    expect(nextVersion(1999, true)).toBe(2000);
    expect(nextVersion(2000, true)).toBe(3000);
  });
});
