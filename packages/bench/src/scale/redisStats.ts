/** Redis's own counters, summed over the servers of a store: what the store did, not what a client believes. */
import { Redis } from 'ioredis';
import { LOOPBACK_HOST as HOST } from '@roster/testing';

/** A reading of the counters. */
export interface RedisCounters {
  /** Calls per command name (`get`, `evalsha`, …), from `INFO commandstats`. */
  readonly calls: Readonly<Record<string, number>>;
  /** `total_net_output_bytes`: bytes the servers sent. */
  readonly outputBytes: number;
  /** `total_net_input_bytes`: bytes the servers received. */
  readonly inputBytes: number;
  /**
   * Bytes this reading itself made the servers send after they counted `outputBytes` (the replies
   * to its `INFO` commands): the next reading's `outputBytes` includes them, the store's work
   * does not.
   */
  readonly ownOutputBytes: number;
}

function field(info: string, name: string): number {
  const match = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return match ? Number(match[1]) : 0;
}

/** Bytes of a RESP bulk string reply carrying `body`: `$<length>\r\n<body>\r\n`. */
function bulkBytes(body: string): number {
  const n = Buffer.byteLength(body);
  return 1 + String(n).length + 2 + n + 2;
}

/**
 * Reads the counters of a store's servers over one lasting connection each, without a ready
 * check: a fresh connection per reading would add its handshake (ioredis' ready check is a full
 * `INFO`, some kilobytes) to the bytes counted, a fixed cost that weighs more the fewer members
 * share it. The replies of the reading itself are reported, to be taken out of the next one.
 */
export class RedisStatsReader {
  readonly #clients: Redis[];

  constructor(ports: readonly number[]) {
    this.#clients = ports.map((port) => {
      const client = new Redis({ host: HOST, port, lazyConnect: true, enableReadyCheck: false, connectTimeout: 5000, commandTimeout: 5000, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => {});
      return client;
    });
  }

  /** Reads every server and adds the counters up. */
  async read(): Promise<RedisCounters> {
    const calls: Record<string, number> = {};
    let outputBytes = 0;
    let inputBytes = 0;
    let ownOutputBytes = 0;
    for (const client of this.#clients) {
      if (client.status === 'wait') await client.connect();
      const stats = String(await client.call('INFO', 'stats'));
      outputBytes += field(stats, 'total_net_output_bytes');
      inputBytes += field(stats, 'total_net_input_bytes');
      const commandstats = String(await client.call('INFO', 'commandstats'));
      ownOutputBytes += bulkBytes(stats) + bulkBytes(commandstats);
      for (const match of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        calls[match[1]!] = (calls[match[1]!] ?? 0) + Number(match[2]);
      }
    }
    return { calls, outputBytes, inputBytes, ownOutputBytes };
  }

  /** Closes the connections. */
  close(): void {
    for (const client of this.#clients) client.disconnect();
  }
}

/** `after − before`, without the commands and replies of the readings themselves (`info`). */
export function difference(before: RedisCounters, after: RedisCounters): RedisCounters {
  const calls: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.calls)) {
    if (name === 'info' || name === 'cluster|info' || name === 'cluster') continue;
    const d = n - (before.calls[name] ?? 0);
    if (d > 0) calls[name] = d;
  }
  return { calls, outputBytes: after.outputBytes - before.outputBytes - before.ownOutputBytes, inputBytes: after.inputBytes - before.inputBytes, ownOutputBytes: 0 };
}

/** The total number of calls. */
export function totalCalls(counters: RedisCounters): number {
  return Object.values(counters.calls).reduce((a, b) => a + b, 0);
}
