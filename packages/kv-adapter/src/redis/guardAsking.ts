import type { Cluster, Redis } from 'ioredis';

/** Marks a node connection as guarded, so that it is wrapped once however often it is met. */
const GUARDED = Symbol('roster.guardedAsking');

/**
 * Keeps ioredis' cluster client from leaving an unhandled rejection behind when it follows an
 * `ASK` redirection. ioredis (5.11) sends `ASKING` to the slot's importing node with
 * `redis.asking()` and never handles that promise: when `ASKING` fails (a command timeout while the
 * importing node is slow, the connection lost), the rejection is unhandled and Node ends the
 * process. Seen on a live resharding under load, where it killed a leader; the redirected command
 * itself still fails, or succeeds, as it would anyway, and is reported through its own promise.
 *
 * Wraps `asking` on every node connection the cluster client has or opens (`+node`), with a
 * handler that only marks the promise handled. Pinned to ioredis' behaviour and tested by
 * test/redis-cluster-topology.test.ts ("an ASKING that times out leaves no unhandled rejection").
 */
export function guardAsking(cluster: Cluster): void {
  for (const node of cluster.nodes()) guard(node);
  cluster.on('+node', guard);
}

function guard(node: Redis): void {
  const holder = node as Redis & { [GUARDED]?: true };
  if (holder[GUARDED]) return;
  holder[GUARDED] = true;
  const asking = node.asking.bind(node);
  node.asking = ((...args: Parameters<Redis['asking']>) => {
    const reply = asking(...args);
    reply.catch(() => undefined);
    return reply;
  }) as Redis['asking'];
}
