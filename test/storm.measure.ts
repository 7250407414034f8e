/**
 * What a dead shard costs one RedisKV client (docs/faults.md): cluster node events, log lines and
 * refused operations over 5 s while 8 keys are read every 50 ms, with the shard of half of them
 * SIGKILLed or SIGSTOPped; also the TCP connection attempts to the dead node (counted where
 * `net.Socket#connect` is called) and the CPU time of this process over the 5 s.
 * Prints the counts; asserts nothing.
 */

/** Counts `net.Socket#connect` calls per port, for the whole process. */
function countConnects(): { readonly perPort: Map<number, number>; restore(): void } {
  const perPort = new Map<number, number>();
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // net.createConnection passes its normalized arguments as one array.
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    const port = typeof first === 'object' && first !== null ? Number((first as { port?: unknown }).port) : Number(first);
    perPort.set(port, (perPort.get(port) ?? 0) + 1);
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  return { perPort, restore: () => void (net.Socket.prototype.connect = original) };
}
import net from 'node:net';
import { it } from 'vitest';
import { type Logger } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { startRedisCluster } from './support/redis.js';

function countingLogger(counts: Map<string, number>, level: { min: number }): Logger {
  const levels = ['debug', 'info', 'warn', 'error'] as const;
  const log = (l: number) => (fields: object, message: string) => {
    if (l < level.min) return;
    const error = (fields as { error?: unknown }).error;
    const key = typeof error === 'string' ? `${message} (${error})` : message;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  return Object.fromEntries(levels.map((name, i) => [name, log(i)])) as unknown as Logger;
}

for (const fault of ['kill', 'stop'] as const) {
  it(`one client, a ${fault === 'kill' ? 'SIGKILLed' : 'SIGSTOPped'} shard, 5 s`, { timeout: 120_000 }, async () => {
    const cluster = await startRedisCluster(3);
    const counts = new Map<string, number>();
    const kv = await RedisKV.connect({ url: cluster.url, commandTimeoutMs: 100, logger: countingLogger(counts, { min: 0 }) });
    try {
      const keys = Array.from({ length: 8 }, (_, i) => `storm ${i}`);
      const dead = await cluster.nodeFor(keys[0]!);
      counts.clear();
      const connects = countConnects();
      const cpuBefore = process.cpuUsage();
      if (fault === 'kill') await dead.crash();
      else dead.pause();
      const outcomes = new Map<string, number>();
      const started = performance.now();
      while (performance.now() - started < 5000) {
        const results = await Promise.allSettled(keys.map((k) => kv.get(k)));
        for (const r of results) {
          const code = r.status === 'fulfilled' ? 'ok' : ((r.reason as { code?: string }).code ?? 'other');
          outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const cpu = process.cpuUsage(cpuBefore);
      connects.restore();
      const port = dead.port;
      process.stdout.write(
        `${fault}: ${JSON.stringify(Object.fromEntries(outcomes))} ${JSON.stringify(Object.fromEntries(counts))}` +
          ` connects to the dead node ${connects.perPort.get(port) ?? 0} (all ${[...connects.perPort.values()].reduce((a, b) => a + b, 0)})` +
          ` cpu ${Math.round((cpu.user + cpu.system) / 1000)} ms\n`,
      );
      if (fault === 'stop') dead.resume();
    } finally {
      await kv.close();
      await cluster.stop();
    }
  });
}
