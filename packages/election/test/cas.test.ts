import { describe, expect, it } from 'vitest';
import { ConfigError, MemoryKV, type KV } from '@roster/kv-adapter';
import { checkNodeOptions, createNode } from '../src/index.js';

/** A real MemoryKV that declares it has no compare-and-set. */
function withoutCas(kv: KV): KV {
  return new Proxy(kv, {
    get: (target, prop, receiver) =>
      prop === 'capabilities' ? { ...target.capabilities, compareAndSet: false } : (Reflect.get(target, prop, receiver) as unknown),
  });
}

describe('compare-and-set is required', () => {
  it('createNode refuses a store without compare-and-set with a ConfigError naming `kv`', () => {
    let error: unknown;
    try {
      createNode({ store: withoutCas(new MemoryKV()), group: 'c', env: 'e' });
    } catch (e) {
      error = e;
    }
    expect(ConfigError.is(error)).toBe(true);
    expect((error as ConfigError).field).toBe('store');
    expect((error as ConfigError).message).toContain('compare-and-set');
  });

  it('a store with compare-and-set is accepted', () => {
    expect(createNode({ store: new MemoryKV(), group: 'c', env: 'e' }).state).toBe('idle');
  });
});

describe('checkNodeOptions validates every option but the store, before connecting', () => {
  it('accepts good options without a store', () => {
    expect(() => checkNodeOptions({ group: 'c', env: 'e', intervalMs: 100, timeoutMs: 500 })).not.toThrow();
  });

  it('throws the ConfigError createNode would, naming the field', () => {
    let error: unknown;
    try {
      checkNodeOptions({ group: 'c', env: 'e', intervalMs: 100, timeoutMs: 150 });
    } catch (e) {
      error = e;
    }
    expect(ConfigError.is(error)).toBe(true);
    expect((error as ConfigError).field).toBe('timeoutMs');
  });
});
