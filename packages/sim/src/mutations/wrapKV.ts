import type { KV } from '@roster/kv-adapter';

/** Overrides for some operations of a KV; the others pass through. */
export type KVOverrides = Partial<Pick<KV, 'get' | 'set' | 'delete' | 'append' | 'take' | 'getRange' | 'exchange' | 'compareAndSet'>>;

/** `kv` with some operations replaced: the building block of the KV mutations. */
export function overrideKV(kv: KV, overrides: KVOverrides): KV {
  return {
    name: `${kv.name}*`,
    get capabilities() {
      return kv.capabilities;
    },
    get: overrides.get ?? ((key, options) => kv.get(key, options)),
    set: overrides.set ?? ((key, value, options) => kv.set(key, value, options)),
    delete: overrides.delete ?? ((key, options) => kv.delete(key, options)),
    append: overrides.append ?? ((key, value, options) => kv.append(key, value, options)),
    take: overrides.take ?? ((key, options) => kv.take(key, options)),
    getRange: overrides.getRange ?? ((key, start, end, options) => kv.getRange(key, start, end, options)),
    exchange: overrides.exchange ?? ((key, value, options) => kv.exchange(key, value, options)),
    compareAndSet: overrides.compareAndSet ?? ((key, expected, value, options) => kv.compareAndSet(key, expected, value, options)),
    time: (options) => kv.time(options),
    close: () => kv.close(),
  };
}
