import type { KV } from '@roster/kv-adapter';

/** What {@link recordIssues} reports: every write a node issues, when it issues it. */
export type IssuedWrite = (op: 'set' | 'append' | 'compareAndSet' | 'delete' | 'take' | 'exchange', key: string, value: string | undefined) => void;

/**
 * `kv` with every write reported to `onWrite` at the moment it is issued (before any fault
 * delays it), so that the history knows what a node claimed or appended even when the reply is
 * lost or late.
 */
export function recordIssues(kv: KV, onWrite: IssuedWrite): KV {
  return {
    name: kv.name,
    get capabilities() {
      return kv.capabilities;
    },
    get: (key, options) => kv.get(key, options),
    set: (key, value, options) => {
      onWrite('set', key, value);
      return kv.set(key, value, options);
    },
    delete: (key, options) => {
      onWrite('delete', key, undefined);
      return kv.delete(key, options);
    },
    append: (key, value, options) => {
      onWrite('append', key, value);
      return kv.append(key, value, options);
    },
    take: (key, options) => {
      onWrite('take', key, undefined);
      return kv.take(key, options);
    },
    getRange: (key, start, end, options) => kv.getRange(key, start, end, options),
    exchange: (key, value, options) => {
      onWrite('exchange', key, value);
      return kv.exchange(key, value, options);
    },
    compareAndSet: (key, expected, value, options) => {
      onWrite('compareAndSet', key, value);
      return kv.compareAndSet(key, expected, value, options);
    },
    time: (options) => kv.time(options),
    close: () => kv.close(),
  };
}
