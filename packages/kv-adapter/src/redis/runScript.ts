import type { Cluster, Redis } from 'ioredis';
import { isReplyError } from './mapError.js';
import type { LuaScript } from './scripts.js';

/**
 * Runs `script` on the shard of `key` with `EVALSHA`, and with `EVAL` (which also caches it on
 * that server) when the server answers `NOSCRIPT`. One key only, so it works on any shard.
 */
export async function runScript(client: Redis | Cluster, script: LuaScript, key: string, args: (string | number)[]): Promise<unknown> {
  try {
    return await client.evalsha(script.sha1, 1, key, ...args);
  } catch (error) {
    if (!isReplyError(error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.eval(script.lua, 1, key, ...args);
  }
}
