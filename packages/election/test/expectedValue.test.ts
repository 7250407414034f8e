import { MemoryKV } from '@roster/kv-adapter';
import { formatBroadcast, type Broadcast } from '@roster/follower';
import { describe, expect, it } from 'vitest';
import { expectedValue } from '../src/expectedValue.js';

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

