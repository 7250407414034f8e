/**
 * A real `redis-server` for the tests: the system binary (`$REDIS_SERVER`, else `redis-server` on
 * `PATH`) on a free loopback port, without persistence, in a temp directory. Always `stop()` it,
 * e.g. in `afterAll`; it is also SIGKILLed when the test process exits.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, redisCommand, waitFor } from '@roster/kv-adapter/testing';

/** A running `redis-server`. */
export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** Starts a `redis-server` on a free loopback port and waits for it to answer PING. */
export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'web-service-redis-'));
  const port = await freeLoopbackPort();
  const child = spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.off('exit', kill);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  try {
    await waitFor(async () => (await redisCommand(port, ['PING'], { timeoutMs: 500 })) === 'PONG', { what: `redis-server on port ${port} to answer PING`, timeoutMs: 10_000 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: `redis://127.0.0.1:${port}`, stop };
}
