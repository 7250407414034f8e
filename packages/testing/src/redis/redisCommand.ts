import { createConnection } from 'node:net';
import { LOOPBACK_HOST } from '../process/loopback.js';
import { encodeCommand, parseReply, RedisReplyError } from './resp.js';

/** Options of {@link redisCommand}. */
export interface RedisCommandOptions {
  /** The server's host. @defaultValue {@link LOOPBACK_HOST} */
  readonly host?: string;
  /** Bound on connecting, and on the reply. @defaultValue 2000 */
  readonly timeoutMs?: number;
}

/**
 * Sends one command to the Redis server at `host:port` on a fresh connection and resolves with
 * its reply (a string, a number, `null` or an array of those). Never retries, never queues: a
 * refused connection, an error reply (`ReplyError`, the server's text as its message) or no reply
 * within `timeoutMs` rejects. Meant for setting up and probing local servers, not for traffic: it
 * speaks the protocol itself, so `@roster/testing` needs no Redis driver.
 *
 * @example
 * ```ts
 * await redisCommand(port, ['PING']); // 'PONG'
 * await redisCommand(port, ['CLUSTER', 'INFO'], { timeoutMs: 500 });
 * ```
 */
export function redisCommand(port: number, args: readonly (string | number)[], options: RedisCommandOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const host = options.host ?? LOOPBACK_HOST;
  const what = `${String(args[0] ?? '')} to ${host}:${port}`;
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (error: unknown, value?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error === undefined) resolve(value);
      else reject(error);
    };
    const timer = setTimeout(() => settle(new Error(`redisCommand: ${what}: no reply within ${timeoutMs} ms`)), timeoutMs);
    socket.once('connect', () => socket.write(encodeCommand(args)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      let reply;
      try {
        reply = parseReply(received);
      } catch (error) {
        return settle(error);
      }
      if (reply === undefined) return;
      if (reply.value instanceof RedisReplyError) settle(reply.value);
      else settle(undefined, reply.value);
    });
    socket.once('error', (error) => settle(error));
    socket.once('close', () => settle(new Error(`redisCommand: ${what}: the connection closed before a reply`)));
  });
}
