import { setTimeout as sleep } from 'node:timers/promises';
import type { KV } from '@roster/kv-adapter';
import type { ServiceEvent } from './events.js';

/** What the leader publishes each period: who, under which leadership, the how-manyth time. */
export interface Digest {
  readonly by: string;
  /** The fencing token of the leadership that wrote it, as a decimal string. */
  readonly token: string;
  readonly n: number;
}

/** Options of {@link publishDigests}. */
export interface DigestOptions {
  /** Where the digest goes (the service's data; here Roster's own Redis). */
  readonly store: KV;
  readonly key: string;
  readonly id: string;
  /** The leadership's fencing token: a digest of a later leadership is never overwritten. */
  readonly token: bigint;
  readonly periodMs: number;
  readonly report: (event: ServiceEvent) => void;
  /** Called after each digest written (the service counts them). */
  readonly onDigest: () => void;
}

/**
 * The leader-only work: every `periodMs`, write a digest to `key`, fenced by the leadership's
 * token, until `signal` aborts (the leadership ended: lost, resigned, stopped). Resolves with the
 * number of digests written; never rejects.
 */
export async function publishDigests(signal: AbortSignal, o: DigestOptions): Promise<number> {
  let written = 0;
  for (let n = 1; !signal.aborted; n++) {
    try {
      const ok = await writeFenced(o.store, o.key, { by: o.id, token: o.token.toString(), n }, signal);
      if (ok) {
        written++;
        o.onDigest();
      }
      o.report({ event: 'digest', token: o.token, n, written: ok });
    } catch (error) {
      if (signal.aborted) break;
      o.report({ event: 'error', where: 'digest', message: error instanceof Error ? error.message : String(error) });
    }
    await sleep(o.periodMs, undefined, { signal }).catch(() => undefined);
  }
  return written;
}

/**
 * Writes `digest` unless the key holds one of a later leadership (a higher token): read, then
 * compare-and-set against what was read, so that a write racing with a newer leader's loses.
 */
async function writeFenced(store: KV, key: string, digest: Digest, signal: AbortSignal): Promise<boolean> {
  const current = await store.get(key, { signal });
  if (current !== null && BigInt((JSON.parse(current) as Digest).token) > BigInt(digest.token)) return false;
  const { swapped } = await store.compareAndSet(key, current, JSON.stringify(digest), { signal });
  return swapped;
}
