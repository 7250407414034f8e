import { CompoundKey, DEFAULT_NONCE_WINDOW, type KV, type Namespace } from '@roster/kv-adapter';

/**
 * Deletes every key a run's nodes may have written under `namespace`: each nonce of the leader,
 * join and era keys, each node's id key and access probe. (A leader's list steps are not listed:
 * they expire by themselves after 4T.) Resolves to how many keys existed and were deleted; throws
 * the first failure after trying every key.
 */
export async function deleteRunKeys(kv: KV, namespace: Namespace, nodeIds: readonly string[], window = DEFAULT_NONCE_WINDOW): Promise<number> {
  const bases = ['leader', 'join', 'era', ...nodeIds.map((id) => `id/${id}`)].map((name) => namespace.key(name));
  const keys = [...bases.flatMap((base) => new CompoundKey(base, { window }).keys()), ...nodeIds.map((id) => namespace.key(`probe/${id}`))];
  let deleted = 0;
  let failure: unknown;
  for (const key of keys) {
    try {
      if (await kv.delete(key, { signal: AbortSignal.timeout(5000) })) deleted++;
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  return deleted;
}
