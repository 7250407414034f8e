import { ConfigError } from '@roster/kv-adapter';

// In dynamic mode `threads` is the Roster member's weight, so this is the node's own rule
// (docs/protocol.md): checked here too, because static mode starts no node and a bad count should
// fail at createCluster(), not at join(). (The id is checked by `checkNodeOptions`.)

/** The most threads one instance may declare (the largest weight a Roster member carries). */
export const MAX_THREADS = 1_000_000;

/** Throws {@link ConfigError} unless `threads` is an integer from 1 to {@link MAX_THREADS}. */
export function checkThreads(threads: unknown): asserts threads is number {
  if (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new ConfigError('threads', threads, `Expected \`threads\` to be an integer from 1 to ${MAX_THREADS}`);
  }
}
