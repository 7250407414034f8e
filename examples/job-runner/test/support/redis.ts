/**
 * A real `redis-server` for the tests, started through redis-memory-server from the system binary
 * (`$REDISMS_SYSTEM_BINARY`, else the first `redis-server` on `PATH`), on a free loopback port,
 * without persistence, in a temp directory. Always `stop()` it, e.g. in `afterAll`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { RedisMemoryServer } from 'redis-memory-server';

/** A running `redis-server`. */
export interface TestRedis {
  readonly host: string;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

function systemBinary(): string | undefined {
  if (process.env.REDISMS_SYSTEM_BINARY) return process.env.REDISMS_SYSTEM_BINARY;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return undefined;
}

/** Starts a `redis-server` on a free loopback port. */
export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'job-runner-redis-'));
  const binary = systemBinary();
  const server = new RedisMemoryServer({
    instance: { ip: '127.0.0.1', args: ['--dir', dir, '--save', '', '--appendonly', 'no'] },
    ...(binary && { binary: { systemBinary: binary } }),
  });
  try {
    await server.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await server.getPort();
  let stopping: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    stop() {
      stopping ??= server.stop().then(() => rm(dir, { recursive: true, force: true }));
      return stopping;
    },
  };
}
