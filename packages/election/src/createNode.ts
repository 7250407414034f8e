import { resolveConfig, type RosterNodeOptions } from './config.js';
import type { RosterNode } from './node.js';
import { RosterNode as Node } from './RosterNode.js';

/** Options of {@link createNode}: {@link RosterNodeOptions} plus a signal that stops the node. */
export interface CreateNodeOptions extends RosterNodeOptions {
  /** Aborting it stops the node gracefully, as `stop()` does. */
  readonly signal?: AbortSignal;
}

/**
 * Creates a Roster node: validates the options (a `ConfigError` naming the field for any bad
 * value; a store without compare-and-set is refused) and returns a {@link RosterNode}, not yet
 * started.
 *
 * @example
 * ```ts
 * import { createNode } from '@roster/election';
 * import { MemoryKV } from '@roster/kv-adapter';
 *
 * const store = new MemoryKV();
 * const node = createNode({ store, group: 'billing', env: 'dev', id: 'node1', intervalMs: 100, timeoutMs: 500 });
 * node.on('leader', ({ leader }) => console.log('leader is', leader?.id));
 * await node.start();
 * // … later
 * await node.stop();
 * ```
 */
export function createNode(options: CreateNodeOptions): RosterNode {
  const node = new Node(resolveConfig(options));
  const signal = options.signal;
  if (signal) {
    if (signal.aborted) void node.stop();
    else signal.addEventListener('abort', () => void node.stop(), { once: true });
  }
  return node;
}
