import { describe, expect, it } from 'vitest';
import { MemoryKV } from '@roster/kv-adapter';

describe('workspace', () => {
  it('packages resolve through their exports maps', async () => {
    const kv = new MemoryKV();
    await kv.set('k', 'v');
    expect(await kv.get('k')).toBe('v');
  });
});
