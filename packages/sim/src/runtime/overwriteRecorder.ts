import { compareLeadership, parseBroadcast, parseHeader, type Broadcast } from '@roster/follower';
import type { KV } from '@roster/kv-adapter';
import { overrideKV } from '../mutations/wrapKV.js';

/** What {@link recordOverwrites} reports: a leader-key write that replaced a better leadership. */
export type Overwrite = (key: string, previous: Broadcast, value: Broadcast) => void;

/**
 * `store` (the one store every node's view wraps) with each write at a leader key checked as it
 * is applied: when the value it replaced is the broadcast of a better leadership than the value
 * written, `onOverwrite` is told. Compare-and-set is what prevents this (a write replaces only
 * the value its writer read, and a writer that read a better leadership stands down), so it never
 * happens in the real protocol, whatever the faults, except after data loss.
 */
export function recordOverwrites(store: KV, isLeaderKey: (key: string) => boolean, onOverwrite: Overwrite): KV {
  // A compare-and-set by prefix names the value it replaced by its header: that is what ranks it.
  const check = (key: string, previous: string | null, value: string, prefix = false): void => {
    if (previous === null) return;
    const header = prefix ? parseHeader(previous)?.header : undefined;
    const before = header ? ({ ok: true, broadcast: { ...header, members: [] } } as const) : parseBroadcast(previous);
    const after = parseBroadcast(value);
    if (before.ok && after.ok && compareLeadership(before.broadcast, after.broadcast) < 0) onOverwrite(key, before.broadcast, after.broadcast);
  };
  return overrideKV(store, {
    set: async (key, value, options) => {
      if (!isLeaderKey(key)) return store.set(key, value, options);
      // No compare-and-set: what was there is read first (the protocol never does this).
      const previous = await store.get(key, options);
      await store.set(key, value, options);
      check(key, previous, value);
    },
    compareAndSet: async (key, expected, value, options) => {
      const result = await store.compareAndSet(key, expected, value, options);
      if (result.swapped && isLeaderKey(key)) check(key, expected, value, options?.prefix === true);
      return result;
    },
  });
}
