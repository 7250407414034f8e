import { isKeyFailure } from './CompoundKey.js';
import { StoreAccessError } from './errors.js';
import type { KV } from './KV.js';
import { accessDenied } from './backend/accessDenied.js';

/** How long the probe key lives if the probe is cut short before it deletes it. */
const PROBE_TTL_MS = 10_000;
/** How many probe keys (`key`, `key 1`, `key 2`: other cluster slots) are tried when one is unavailable. */
const PROBE_KEYS = 3;

/**
 * Checks at start that the store lets this client do everything Roster does on keys like `key`:
 * `time`, `compareAndSet`, `set`, `append`, `get`, `take` and `delete` on `key` itself (so `key`
 * should be a key nobody else uses, inside the namespace: e.g. `ns.key('probe/<node id>')`), with
 * a TTL so that nothing stays behind. On Redis this runs every command of the documented ACL rule
 * (docs/security.md) against the namespace's key pattern.
 *
 * When the key is unavailable (on Redis Cluster, its shard is down: `KeyUnavailableError` or a
 * timed-out command) that says nothing about permissions: the probe tries `key 1`, then `key 2`
 * (other slots), and when every one is unavailable it resolves without a verdict, so that a node
 * can start while one shard is down.
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
  if (kv.capabilities.time) await probe(key, () => kv.time(op));
  for (let i = 0; i < PROBE_KEYS; i++) {
    const k = i === 0 ? key : `${key} ${i}`;
    try {
      await probe(k, () => probeKey(kv, k, op));
      return;
    } catch (error) {
      if (!isKeyFailure(error)) throw error;
    }
  }
}

async function probeKey(kv: KV, key: string, op: { signal?: AbortSignal }): Promise<void> {
  if (kv.capabilities.compareAndSet) await kv.compareAndSet(key, null, 'probe', { ...op, ttlMs: PROBE_TTL_MS });
  // SET … GET first: it drops the TTL, which the plain SET below puts back.
  await kv.exchange(key, 'probe', op);
  await kv.set(key, 'probe', { ...op, ttlMs: PROBE_TTL_MS });
  await kv.append(key, '.', op);
  await kv.getRange(key, 0, 15, op);
  await kv.get(key, op);
  await kv.take(key, op);
  await kv.delete(key, op);
}

/** Runs `steps`, turning a refusal for lack of permission into {@link StoreAccessError}. */
async function probe(key: string, steps: () => Promise<unknown>): Promise<void> {
  try {
    await steps();
  } catch (error) {
    const denied = accessDenied(error);
    if (denied !== undefined) throw new StoreAccessError(`${key}: ${denied}`, { cause: error });
    throw error;
  }
}
