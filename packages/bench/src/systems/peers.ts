/** The peers, each through its driver in `../drivers/`. */
import { builtScript } from '../paths.js';
import { jsonLine, type NodeLine, type System } from './System.js';

function driverPath(file: string): string {
  return builtScript(`drivers/${file}`);
}

/** Reads a driver line (`driverIO.ts`). */
export function parseDriverLine(line: string): NodeLine | undefined {
  const o = jsonLine(line);
  if (!o || typeof o.t !== 'number') return undefined;
  switch (o.event) {
    case 'ready':
    case 'leader':
    case 'follower':
    case 'stopped':
      return { t: o.t, kind: o.event };
    default:
      return undefined;
  }
}

/** Options of {@link redisLeaderSystem}. */
export interface RedisLeaderSystemOptions {
  readonly url: string;
  readonly key: string;
  /** The lock's TTL (it renews every TTL/2). */
  readonly ttlMs: number;
  /** The retry period of a non-leader. */
  readonly waitMs: number;
}

/** The npm package `redis-leader` on the same redis-server. */
export function redisLeaderSystem(options: RedisLeaderSystemOptions): System {
  const { ttlMs, waitMs } = options;
  return {
    name: `redis-leader-${ttlMs}`,
    label: `redis-leader TTL=${ttlMs}`,
    timing: `TTL ${ttlMs} ms (renewed every ${ttlMs / 2} ms), retry every ${waitMs} ms`,
    timeoutMs: ttlMs,
    settleMs: ttlMs + 3 * waitMs + 300,
    reportsMembers: false,
    command: () => ({
      file: process.execPath,
      args: [driverPath('redisLeaderDriver.js'), '--url', options.url, '--key', options.key, '--ttl', String(ttlMs), '--wait', String(waitMs)],
    }),
    parse: parseDriverLine,
  };
}

/** Options of {@link etcdSystem}. */
export interface EtcdSystemOptions {
  readonly url: string;
  readonly key: string;
  /** The lease TTL in whole seconds, as granted by the server. */
  readonly ttlS: number;
  /** What was asked for, when the server raised it to its minimum. */
  readonly requestedTtlS: number;
  /** How long after a failed campaign a new one starts. */
  readonly waitMs: number;
}

/** etcd's Election through the `etcd3` client. */
export function etcdSystem(options: EtcdSystemOptions): System {
  const { ttlS, requestedTtlS, waitMs } = options;
  const raised = ttlS !== requestedTtlS ? ` (asked ${requestedTtlS} s; etcd's minimum lease TTL)` : '';
  return {
    name: `etcd-${ttlS}s`,
    label: `etcd Election TTL=${ttlS}s`,
    timing: `lease TTL ${ttlS} s${raised}, keep-alive every ${Math.round((ttlS * 1000) / 3)} ms`,
    timeoutMs: ttlS * 1000,
    settleMs: 1500,
    reportsMembers: false,
    command: () => ({
      file: process.execPath,
      args: [driverPath('etcdDriver.js'), '--url', options.url, '--key', options.key, '--ttl', String(ttlS), '--wait', String(waitMs)],
    }),
    parse: parseDriverLine,
  };
}
