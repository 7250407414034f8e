/**
 * What a dead shard costs one RedisKV client (docs/faults.md): cluster node events, log lines and
 * refused operations over 5 s while 8 keys are read every 50 ms, with the shard of half of them
 * SIGKILLed or SIGSTOPped. Prints the counts; asserts nothing.
 */
import { it } from 'vitest';
import { RedisKV, type Logger } from '@roster/kv-adapter';
import { startRedisCluster } from './support/redis.js';

function countingLogger(counts: Map<string, number>, level: { min: number }): Logger {
  const levels = ['debug', 'info', 'warn', 'error'] as const;
  const log = (l: number) => (_fields: object, message: string) => {
    if (l < level.min) return;
    counts.set(message, (counts.get(message) ?? 0) + 1);
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
      const cpu = process.cpuUsage();
      process.stdout.write(`${fault}: ${JSON.stringify(Object.fromEntries(outcomes))} ${JSON.stringify(Object.fromEntries(counts))} cpu ${cpu.user / 1000} ms\n`);
      if (fault === 'stop') dead.resume();
    } finally {
      await kv.close();
      await cluster.stop();
    }
  });
}
