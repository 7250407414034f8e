/** Redis's own counters, summed over the servers of a store: what the store did, not what a client believes. */
import { redisCommand } from '../infra/redisServer.js';

/** A reading of the counters. */
export interface RedisCounters {
  /** Calls per command name (`get`, `set`, `evalsha`, …), from `INFO commandstats`. */
  readonly calls: Readonly<Record<string, number>>;
  /** `total_net_output_bytes`: bytes the servers sent. */
  readonly outputBytes: number;
  /** `total_net_input_bytes`: bytes the servers received. */
  readonly inputBytes: number;
}

function field(info: string, name: string): number {
  const match = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return match ? Number(match[1]) : 0;
}

/** Reads the counters of every server (by port) and adds them up. */
export async function readCounters(ports: readonly number[]): Promise<RedisCounters> {
  const calls: Record<string, number> = {};
  let outputBytes = 0;
  let inputBytes = 0;
  for (const port of ports) {
    const stats = String(await redisCommand(port, ['INFO', 'stats']));
    outputBytes += field(stats, 'total_net_output_bytes');
    inputBytes += field(stats, 'total_net_input_bytes');
    const commandstats = String(await redisCommand(port, ['INFO', 'commandstats']));
    for (const match of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      calls[match[1]!] = (calls[match[1]!] ?? 0) + Number(match[2]);
    }
  }
  return { calls, outputBytes, inputBytes };
}

/** `after − before`, without the commands the reading itself issued (`info`, `ping`, `cluster`). */
export function difference(before: RedisCounters, after: RedisCounters): RedisCounters {
  const calls: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.calls)) {
    if (name === 'info' || name === 'cluster|info' || name === 'cluster') continue;
    const d = n - (before.calls[name] ?? 0);
    if (d > 0) calls[name] = d;
  }
  return { calls, outputBytes: after.outputBytes - before.outputBytes, inputBytes: after.inputBytes - before.inputBytes };
}

/** The total number of calls. */
export function totalCalls(counters: RedisCounters): number {
  return Object.values(counters.calls).reduce((a, b) => a + b, 0);
}
