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
    // NOSCRIPT: this server never ran the script. It also comes wrapped, from a server that a
    // redirection led to (`Too many Cluster redirections. Last error: ReplyError: NOSCRIPT …`, seen
    // when a migrating slot sent the command to its importing master with ASK).
    if (!noScript(error)) throw error;
    return client.eval(script.lua, 1, key, ...args);
  }
}

/** True for a `NOSCRIPT` reply, direct or as the last error of ioredis' redirections. */
function noScript(error: unknown): boolean {
  if (isReplyError(error)) return error.message.startsWith('NOSCRIPT');
  return error instanceof Error && /^Too many Cluster redirections\. Last error: ReplyError: NOSCRIPT\b/.test(error.message);
}
