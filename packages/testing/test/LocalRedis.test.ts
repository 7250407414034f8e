import { ConfigError, connectStore } from '@roster/kv-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRedis, redisCommand, ServerProcess } from '../src/index.js';

/** True while a process of that id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('LocalRedis: one redis-server on the one process fixture', () => {
  let redis: LocalRedis;
  beforeAll(async () => {
    redis = await LocalRedis.start();
  });
  afterAll(() => redis?.stop());

  it('answers on its loopback port, with nothing persisted', async () => {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await redis.command(['PING'])).toBe('PONG');
    expect(await redis.command(['CONFIG', 'GET', 'save'])).toEqual(['save', '']);
    expect(await redis.command(['CONFIG', 'GET', 'appendonly'])).toEqual(['appendonly', 'no']);
  });

  it('serves a store opened from its URL', async () => {
    const kv = await connectStore(redis.url, { connectTimeoutMs: 2000 });
    try {
      await kv.set('greeting', 'hello');
      expect(await kv.get('greeting')).toBe('hello');
    } finally {
      await kv.close();
    }
  });

  it('pauses (nothing answers), resumes, crashes and restarts empty on the same port', async () => {
    await redis.command(['SET', 'k', 'v']);
    redis.pause();
    await expect(redis.command(['PING'], { timeoutMs: 300 })).rejects.toThrow(/no reply within 300 ms/);
    redis.resume();
    expect(await redis.command(['PING'])).toBe('PONG');
    const pid = redis.pid!;
    await redis.kill();
    expect(redis.running).toBe(false);
    expect(alive(pid)).toBe(false);
    await expect(redis.command(['PING'], { timeoutMs: 300 })).rejects.toThrow();
    await redis.restart();
    expect(await redis.command(['GET', 'k'])).toBeNull();
  });

  it('restarts with its data when asked to keep it', async () => {
    await redis.command(['SET', 'kept', '1']);
    await redis.restart({ keepData: true });
    expect(await redis.command(['GET', 'kept'])).toBe('1');
  });

  it('reports an error reply as a rejection with the server\'s text', async () => {
    await expect(redis.command(['NO-SUCH-COMMAND'])).rejects.toThrow(/unknown command/i);
  });

  it('stop() ends the process and is idempotent', async () => {
    const other = await LocalRedis.start({ args: ['--maxclients', '100'] });
    expect(await other.command(['CONFIG', 'GET', 'maxclients'])).toEqual(['maxclients', '100']);
    const pid = other.pid!;
    await Promise.all([other.stop(), other.stop()]);
    expect(alive(pid)).toBe(false);
    await expect(other.restart()).rejects.toThrow(/after stop/);
  });

  it('rejects a bad option with a typed error, and a missing binary with its output', async () => {
    await expect(LocalRedis.start({ binary: '' })).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalRedis.start({ binary: '/no/such/redis-server' })).rejects.toThrow(/cannot run/);
  });
});

describe('ServerProcess', () => {
  it('stops gracefully, SIGKILLs what ignores the signal after the grace, and can start again', async () => {
    const server = new ServerProcess(process.execPath, 'a node that ignores SIGTERM');
    const argv = ['-e', "process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000);"];
    await server.start(argv, async () => server.output.includes('up'), 5000);
    const pid = server.pid!;
    const started = Date.now();
    await server.stop({ graceMs: 200 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(alive(pid)).toBe(false);
    await server.start(argv, async () => server.output.includes('up'), 5000);
    expect(server.running).toBe(true);
    await server.kill();
    expect(server.running).toBe(false);
  });

  it('rejects a start whose process exits before it is ready, with its output', async () => {
    const server = new ServerProcess(process.execPath, 'a node that exits');
    await expect(server.start(['-e', "console.error('bad config'); process.exit(3)"], async () => false, 5000)).rejects.toThrow(/exited with 3:\s*bad config/);
  });
});

describe('redisCommand', () => {
  it('rejects a refused connection at once', async () => {
    await expect(redisCommand(1, ['PING'], { timeoutMs: 1000 })).rejects.toThrow(/ECONNREFUSED/);
  });
});
