import { StoreAccessError } from './errors.js';
import type { KV } from './KV.js';
import { accessDenied } from './redis/accessDenied.js';

/** How long the probe key lives if the probe is cut short before it deletes it. */
const PROBE_TTL_MS = 10_000;

/**
 * Checks at start that the store lets this client do everything Roster does on keys like `key`:
 * `time`, `compareAndSet`, `set`, `append`, `get`, `take` and `delete` on `key` itself (so `key`
 * should be a key nobody else uses, inside the namespace: e.g. `ns.key('probe/<node id>')`), with
 * a TTL so that nothing stays behind. On Redis this runs every command of the documented ACL rule
 * (docs/security.md) against the namespace's key pattern.
 *
 * @throws {@link StoreAccessError} when the store refuses one of them (`NOPERM`: the ACL user
 *   lacks a command or the key pattern); other store errors pass through unchanged.
 *
 * @example
 * ```ts
 * const kv = await RedisKV.connect({ url: 'rediss://roster:s3cret@redis.internal:6380' });
 * await probeAccess(kv, new Namespace('billing', 'prod').key('probe/web-1'));
 * ```
 */
export async function probeAccess(kv: KV, key: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  const op = { ...(options.signal && { signal: options.signal }) };
  try {
    if (kv.capabilities.time) await kv.time(op);
    if (kv.capabilities.compareAndSet) await kv.compareAndSet(key, null, 'probe', { ...op, ttlMs: PROBE_TTL_MS });
    await kv.set(key, 'probe', { ...op, ttlMs: PROBE_TTL_MS });
    await kv.append(key, '.', op);
    await kv.get(key, op);
    await kv.take(key, op);
    await kv.delete(key, op);
  } catch (error) {
    const denied = accessDenied(error);
    if (denied !== undefined) throw new StoreAccessError(`${key}: ${denied}`, { cause: error });
    throw error;
  }
}
