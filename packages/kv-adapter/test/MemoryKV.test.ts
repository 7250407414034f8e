import { describe, expect, it } from 'vitest';
import { MemoryKV } from '../src/index.js';
import { VirtualClock } from '@roster/testing';
import { kvContract } from './contract.js';

kvContract('MemoryKV', async () => ({ kv: new MemoryKV() }));

describe('MemoryKV', () => {
  it('expires keys on its clock', async () => {
    const clock = new VirtualClock();
    const kv = new MemoryKV({ clock });
    await kv.set('t', 'v', { ttlMs: 1000 });
    await clock.advance(999);
    expect(await kv.get('t')).toBe('v');
    await clock.advance(1);
    expect(await kv.get('t')).toBeNull();
  });

  it('time() is the clock wall time', async () => {
    const clock = new VirtualClock({ epoch: 1_800_000_000_000 });
    const kv = new MemoryKV({ clock });
    await clock.advance(5);
    expect(await kv.time()).toBe(1_800_000_000_005);
  });

  it('flushAll loses every key, as a restarted store without persistence', async () => {
    const kv = new MemoryKV();
    await kv.set('a', '1');
    kv.flushAll();
    expect(await kv.get('a')).toBeNull();
    expect(kv.keys()).toEqual([]);
  });

  it('rejects a signal that is already aborted', async () => {
    const kv = new MemoryKV();
    await expect(kv.get('a', { signal: AbortSignal.abort(new Error('stop')) })).rejects.toThrow('stop');
  });
});
