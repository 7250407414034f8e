import type { LeaderInfo, NodeState, Role, WatchFunction } from '@roster/election';

/**
 * What the simulator observes of a node: the part of `RosterNode`'s public surface the
 * properties read. A plain `RosterNode` is one; a mutation may wrap it.
 */
export interface SimNode {
  readonly id: string;
  readonly state: NodeState;
  readonly role: Role;
  readonly leader: LeaderInfo | undefined;
  readonly memberIds: string[];
  isLeader(): boolean;
  watch(fn: WatchFunction): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
  resign(): Promise<void>;
  destroy(): void;
}


/** A {@link SimNode} that forwards to `node`, except for what `overrides` replaces. */
export function delegate(node: SimNode, overrides: Partial<Pick<SimNode, 'isLeader' | 'watch'>> = {}): SimNode {
  return {
    id: node.id,
    get state() {
      return node.state;
    },
    get role() {
      return node.role;
    },
    get leader() {
      return node.leader;
    },
    get memberIds() {
      return node.memberIds;
    },
    isLeader: overrides.isLeader ?? (() => node.isLeader()),
    watch: overrides.watch ?? ((fn) => node.watch(fn)),
    start: () => node.start(),
    stop: () => node.stop(),
    resign: () => node.resign(),
    destroy: () => node.destroy(),
  };
}
