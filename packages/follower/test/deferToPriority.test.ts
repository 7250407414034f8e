import { describe, expect, it } from 'vitest';
import { Staleness } from '../src/Staleness.js';

const T = 5000;
const goodbye = { era: 3, nonce: 0, version: 42, id: 'old', members: [] };

describe('a goodbye to a member that defers to one of higher priority', () => {
  it('is stale at once for everyone else, and only once still for T for a member that defers', () => {
    const s = new Staleness(0, 2000);
    s.observe(goodbye, 1000);
    expect(s.isStale(1000, T)).toBe(true);
    expect(s.staleAt(T)).toBe(1000);
    expect(s.isStale(1000, T, false)).toBe(false);
    expect(s.isStale(1000 + T - 1, T, false)).toBe(false);
    expect(s.isStale(1000 + T, T, false)).toBe(true);
    expect(s.staleAt(T, false)).toBe(1000 + T);
  });
});
