import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The `redis-server` binary the local Redis servers run by default: `$REDISMS_SYSTEM_BINARY`, else
 * `$ROSTER_REDIS_SERVER`, else the first `redis-server` on `PATH`, else `/usr/bin/redis-server`;
 * `undefined` when there is none. The same binary runs sentinels (`--sentinel`).
 *
 * @example
 * ```ts
 * const binary = findRedisServer() ?? skip('no redis-server installed');
 * ```
 */
export function findRedisServer(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const named = env.REDISMS_SYSTEM_BINARY || env.ROSTER_REDIS_SERVER;
  if (named) return named;
  const candidates = [...(env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'redis-server')), '/usr/bin/redis-server'];
  return candidates.find((path) => existsSync(path));
}

/** {@link findRedisServer}, or an error saying how to install one. */
export function requireRedisServer(what: string): string {
  const found = findRedisServer();
  if (found === undefined) throw new Error(`${what} needs redis-server (apt-get install redis-server, or set ROSTER_REDIS_SERVER to its path)`);
  return found;
}
