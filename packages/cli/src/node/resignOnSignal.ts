import type { RosterNode } from '@roster/election';
import type { Logger } from '@roster/kv-adapter';
import type { CliIO } from '../commands/Command.js';

/**
 * Makes SIGUSR2 call `node.resign()` (see {@link CliIO.onResignSignal}): a leader hands leadership
 * over and stays a member, so a sidecar can move leadership away without stopping; a node that
 * does not lead ignores it (logged). Returns the function that stops listening.
 */
export function resignOnSignal(io: CliIO, node: RosterNode, log: Logger): () => void {
  const unlisten = io.onResignSignal?.(() => {
    log.info({ signal: 'SIGUSR2', role: node.role }, node.isLeader() ? 'resigning leadership' : 'asked to resign: this node does not lead');
    void node.resign();
  });
  return unlisten ?? (() => undefined);
}
