import { isValidNodeId } from '@roster/election';
import { ConfigError } from '@roster/kv-adapter';

// In dynamic mode the instance id is the Roster node id and `threads` the member's weight, so
// these are the node's own rules (docs/protocol.md): checked here too, because static mode
// starts no node and a bad id should fail at createCluster(), not at join().

/** The most threads one instance may declare (the largest weight a Roster member carries). */
export const MAX_THREADS = 1_000_000;

/** Throws {@link ConfigError} unless `id` is a valid Roster node id. */
export function checkInstanceId(id: unknown): asserts id is string {
  if (!isValidNodeId(id)) {
    throw new ConfigError('instanceId', id, 'Expected `instanceId` to be 1 to 128 characters of letters, digits and . _ @ - (no whitespace)');
  }
}

/** Throws {@link ConfigError} unless `threads` is an integer from 1 to {@link MAX_THREADS}. */
export function checkThreads(threads: unknown): asserts threads is number {
  if (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new ConfigError('threads', threads, `Expected \`threads\` to be an integer from 1 to ${MAX_THREADS}`);
  }
}
