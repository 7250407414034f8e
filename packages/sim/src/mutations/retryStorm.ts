import type { KV } from '@roster/kv-adapter';
import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/** How many times the mutated client tries an operation that fails. */
const TRIES = 50;

/**
 * A node whose store client retries every failed operation at once, up to {@link TRIES} times (a
 * "resilient" wrapper with no backoff): harmless while the store answers, a storm of commands
 * against a store that is down or a key that is unavailable, the moment the store can least take it.
 */
export const retryStorm: Mutation = {
  name: 'retry-storm',
  description: 'the node retries every failed store operation at once, up to 50 times, without waiting',
  rejectedBy: 'operation-budget',
  wrapKV(kv) {
    const retried =
      <A extends unknown[], R>(op: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await op(...args);
          } catch (error) {
            if (attempt >= TRIES) throw error;
          }
        }
      };
    const k: KV = kv;
    return overrideKV(kv, {
      get: retried((key, options) => k.get(key, options)),
      getRange: retried((key, start, end, options) => k.getRange(key, start, end, options)),
      exchange: retried((key, value, options) => k.exchange(key, value, options)),
      take: retried((key, options) => k.take(key, options)),
      compareAndSet: retried((key, expected, value, options) => k.compareAndSet(key, expected, value, options)),
    });
  },
};
