import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function required(name: string, found: string | undefined, hint: string): string {
  if (!found) throw new Error(`bench: ${name} not found (${hint})`);
  return found;
}

/** `redis-server`: `$ROSTER_REDIS_SERVER`, else the first on `PATH`. */
export function redisServerBinary(): string {
  return required('redis-server', process.env.ROSTER_REDIS_SERVER || onPath('redis-server'), 'apt-get install redis-server, or set ROSTER_REDIS_SERVER');
}

/** `etcd`: `$ROSTER_ETCD`, else the first on `PATH`. */
export function etcdBinary(): string {
  return required('etcd', process.env.ROSTER_ETCD || onPath('etcd'), 'apt-get install etcd-server, or set ROSTER_ETCD');
}
