#!/usr/bin/env node
/**
 * A job runner on Roster: every process runs its shard of a job queue in Redis, and one of them,
 * the leader, schedules the rounds. Run three:
 *
 *   node examples/job-runner/dist/main.js --store redis://127.0.0.1:6379
 */
import { Redis } from 'ioredis';
import { createCluster } from '@roster/cluster';
import { createNode } from '@roster/election';
import { RedisKV } from '@roster/kv-adapter/redis';
import { printEvent as report } from './events.js';
import { JobQueue } from './JobQueue.js';
import { parseOptions, UsageError, USAGE } from './options.js';
import { runScheduler } from './scheduler.js';
import { runWorker } from './worker.js';

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) return void process.stdout.write(USAGE);
  const { store, id, env, intervalMs, timeoutMs, renewDeadlineMs } = options;

  // The service's own data, and Roster's store: the same Redis unless --data names another.
  const redis = new Redis(options.data, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // ioredis reconnects by itself; failed commands are reported below
  const kv = await RedisKV.connect({ url: store });
  const queue = new JobQueue(redis);
  await queue.seed(options.jobs);

  // One Roster group elects the scheduler; a second one, of the same processes, divides the queue.
  const node = createNode({ store: kv, group: 'job-runner', env, id, intervalMs, timeoutMs, ...(renewDeadlineMs && { renewDeadlineMs }) });
  const cluster = createCluster({ group: 'job-runner-workers', env, id, store: kv, intervalMs, timeoutMs });

  node.on('leader', ({ leader }) => report({ event: 'leader', leader: leader?.id ?? null, token: leader?.token ?? null }));
  // The scheduler runs at each leadership (an election, a lapsed lease re-validated), with its
  // fencing token; its signal aborts the moment this node may no longer act as leader, and stop()
  // waits for it to wind down before the goodbye.
  node.whileLeader(async ({ signal, token }) => {
    report({ event: 'leading', token });
    signal.addEventListener('abort', () => report({ event: 'stopped-leading', token, reason: String(signal.reason) }), { once: true });
    await runScheduler(signal, token, { queue, id, periodMs: options.periodMs, workMs: options.workMs, report });
  });
  cluster.on('rebalance', ({ index, threads, total }) => report({ event: 'balance', index, threads, total }));

  const stopping = new AbortController();
  const working = runWorker(stopping.signal, { queue, cluster, id, pollMs: options.pollMs, report });
  await node.start();
  await cluster.join();
  report({ event: 'ready', id });

  const stop = async (): Promise<void> => {
    stopping.abort();
    await Promise.all([node.stop(), cluster.leave(), working]);
    await kv.close();
    await redis.quit();
    report({ event: 'stopped' });
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `job-runner: ${String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
