import { MemoryKV } from '@roster/kv-adapter';
import { formatBroadcast, type Broadcast } from '@roster/follower';
import { describe, expect, it } from 'vitest';
import { expectedValue, nextVersion, supersedes } from '../src/versions.js';

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

describe('what a compare-and-set over a broadcast expects', () => {
  const long: Broadcast = { era: 7, nonce: 1, version: 3000, id: 'node-0', members: Array.from({ length: 500 }, (_, i) => ({ id: `node-${i}`, weight: 1 })) };
  const raw = formatBroadcast(long);

  it('a long broadcast is named by its header, on a store that compares prefixes', async () => {
    const kv = new MemoryKV();
    const { expected, options } = expectedValue(kv, raw);
    expect(expected).toBe('7 1 3000 node-0 ');
    expect(options).toEqual({ prefix: true });
    await kv.set('k', raw);
    // The next Version of the same list, written meanwhile, is another value: no match.
    await kv.set('k', formatBroadcast({ ...long, version: 3001 }));
    expect((await kv.compareAndSet('k', expected, 'claim', options)).swapped).toBe(false);
  });

  it('a short value, garbage, no value, or a store without prefix compares: the whole value', () => {
    const kv = new MemoryKV();
    const plain = Object.assign(Object.create(kv) as MemoryKV, { capabilities: { compareAndSet: true, time: true } });
    expect(expectedValue(plain, raw)).toEqual({ expected: raw, options: {} });
    const claim = formatBroadcast({ era: 8, nonce: 0, version: 0, id: 'node-3', members: [{ id: 'node-3', weight: 1 }] });
    expect(expectedValue(kv, claim)).toEqual({ expected: claim, options: {} });
    const garbage = `not a broadcast ${'x'.repeat(1000)}`;
    expect(expectedValue(kv, garbage)).toEqual({ expected: garbage, options: {} });
    expect(expectedValue(kv, null)).toEqual({ expected: null, options: {} });
  });
});

