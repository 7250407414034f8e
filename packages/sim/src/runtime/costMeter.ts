import type { Clock, KV } from '@roster/kv-adapter';
import type { Role } from '@roster/election';

/** One store command a node issued, as the cost meter counts it. */
export interface CommandCost {
  /** Virtual time at which it was issued. */
  readonly at: number;
  /** The node's id. */
  readonly node: string;
  /** The incarnation that issued it (`n1`, `n1#2`…: see `Incarnation`). */
  readonly incarnation: string;
  /** The node's role when it issued it. */
  readonly role: Role | undefined;
  /** The KV operation. */
  readonly op: string;
  /** The key it named, as the node wrote it (the cluster's prefix included). */
  readonly key: string;
  /** UTF-8 bytes of the key and value sent to the store. */
  readonly bytesIn: number;
  /** UTF-8 bytes of the value the store sent back (what Redis would send, without framing). */
  readonly bytesOut: number;
}

const bytes = (s: string | null | undefined): number => (s ? Buffer.byteLength(s) : 0);

/**
 * `kv` with every command counted: `record` receives each one, with the time it was issued and
 * the bytes it carried each way, once the store answered (a command that failed counts, with
 * nothing sent back).
 */
export function meterKV(kv: KV, clock: Clock, record: (cost: Pick<CommandCost, 'at' | 'op' | 'key' | 'bytesIn' | 'bytesOut'>) => void): KV {
  const count = <T>(op: string, key: string, sent: number, work: Promise<T>, out: (value: T) => number): Promise<T> => {
    const at = clock.now();
    return work.then(
      (value) => {
        record({ at, op, key, bytesIn: sent, bytesOut: out(value) });
        return value;
      },
      (error: unknown) => {
        record({ at, op, key, bytesIn: sent, bytesOut: 0 });
        throw error;
      },
    );
  };
  return {
    name: kv.name,
    get capabilities() {
      return kv.capabilities;
    },
    get: (key, options) => count('get', key, bytes(key), kv.get(key, options), bytes),
    set: (key, value, options) => count('set', key, bytes(key) + bytes(value), kv.set(key, value, options), () => 0),
    delete: (key, options) => count('delete', key, bytes(key), kv.delete(key, options), () => 0),
    append: (key, value, options) => count('append', key, bytes(key) + bytes(value), kv.append(key, value, options), () => 0),
    take: (key, options) => count('take', key, bytes(key), kv.take(key, options), bytes),
    getRange: (key, start, end, options) => count('getRange', key, bytes(key), kv.getRange(key, start, end, options), bytes),
    exchange: (key, value, options) => count('exchange', key, bytes(key) + bytes(value), kv.exchange(key, value, options), bytes),
    compareAndSet: (key, expected, value, options) =>
      count('compareAndSet', key, bytes(key) + bytes(expected) + bytes(value), kv.compareAndSet(key, expected, value, options), (r) =>
        r.swapped ? 0 : bytes(r.current),
      ),
    time: (options) => count('time', '', 0, kv.time(options), () => 0),
    close: () => kv.close(),
  };
}

/** Store cost per member and per interval over a stretch of a run (see {@link costPerMember}). */
export interface CostFigures {
  /** Members counted (nodes that issued commands in the stretch). */
  readonly members: number;
  /** Intervals in the stretch. */
  readonly intervals: number;
  /** Commands per member per interval, every node's commands divided among all members. */
  readonly commands: number;
  /** Bytes the store sent per member per interval, likewise. */
  readonly bytesOut: number;
  /** A follower's own commands per interval (the mean over followers). */
  readonly followerCommands: number;
  /** Bytes the store sent to one follower per interval (the mean over followers). */
  readonly followerBytesOut: number;
  /** The leader's commands per interval divided by the number of members. */
  readonly leaderCommandsPerMember: number;
}

/**
 * What the store did per member and per interval between `from` and `to` (virtual ms), from the
 * commands a run's nodes issued (`run.costs`). Meant for a stretch of steady state: the roles are
 * taken from the commands' roles.
 */
export function costPerMember(costs: readonly CommandCost[], from: number, to: number, intervalMs: number): CostFigures {
  const inside = costs.filter((c) => c.at >= from && c.at < to);
  const intervals = (to - from) / intervalMs;
  const nodes = new Set(inside.map((c) => c.node));
  const followers = new Set(inside.filter((c) => c.role === 'follower').map((c) => c.node));
  const leaders = new Set(inside.filter((c) => c.role === 'leader').map((c) => c.node));
  const members = nodes.size;
  const sum = (cs: readonly CommandCost[], f: (c: CommandCost) => number) => cs.reduce((a, c) => a + f(c), 0);
  const ofFollowers = inside.filter((c) => c.role === 'follower');
  const ofLeaders = inside.filter((c) => c.role === 'leader');
  const per = (n: number, d: number) => (d === 0 ? 0 : n / d);
  return {
    members,
    intervals,
    commands: per(inside.length, members * intervals),
    bytesOut: per(sum(inside, (c) => c.bytesOut), members * intervals),
    followerCommands: per(ofFollowers.length, followers.size * intervals),
    followerBytesOut: per(sum(ofFollowers, (c) => c.bytesOut), followers.size * intervals),
    leaderCommandsPerMember: per(ofLeaders.length, Math.max(1, leaders.size) * members * intervals),
  };
}
