import { Redis } from 'ioredis';
import { LOOPBACK_HOST } from './loopback.js';

/** Options of {@link redisCommand}. */
export interface RedisCommandOptions {
  /** The server's host. @defaultValue {@link LOOPBACK_HOST} */
  readonly host?: string;
  /** Bound on connecting, and on the reply. @defaultValue 2000 */
  readonly timeoutMs?: number;
}

/**
 * Sends one command to the Redis server at `host:port` on a fresh connection and resolves with
 * its reply. Never retries, never queues: a refused connection, an error reply or no reply within
 * `timeoutMs` rejects. Meant for setting up and probing local servers, not for traffic.
 *
 * @example
 * ```ts
 * await redisCommand(port, ['PING']); // 'PONG'
 * await redisCommand(port, ['CLUSTER', 'INFO'], { timeoutMs: 500 });
 * ```
 */
export async function redisCommand(port: number, args: readonly (string | number)[], options: RedisCommandOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const client = new Redis({
    host: options.host ?? LOOPBACK_HOST,
    port,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    client.disconnect();
  }
}
