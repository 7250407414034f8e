import type { KV } from '@roster/kv-adapter';

/** `kv` with some members replaced; every other member is forwarded to `kv` (methods bound to it). */
export function overrideKV(kv: KV, overrides: Partial<KV>): KV {
  return new Proxy(kv, {
    get(target, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return (overrides as Record<string | symbol, unknown>)[prop];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
