import type { Cluster, Redis } from 'ioredis';

/** `TIME`'s `[seconds, microseconds]` as ms since the epoch. */
export function parseTime(reply: (number | string)[]): number {
  const [seconds, micros] = reply;
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** `TIME` from the first master that answers: `TIME` has no key, so any shard will do. */
export async function clusterTime(cluster: Cluster): Promise<number> {
  const rank = (node: Redis): number => (node.status === 'ready' ? 0 : 1);
  const nodes = cluster.nodes('master').filter((node) => node.status !== 'end').sort((a, b) => rank(a) - rank(b));
  let lastError: unknown = new Error('no cluster node is connected');
  for (const node of nodes) {
    try {
      return parseTime(await node.time());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
