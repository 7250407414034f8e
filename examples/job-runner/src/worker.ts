import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from '@roster/cluster';
import type { RunnerEvent } from './events.js';
import type { JobQueue } from './JobQueue.js';
import { shardOf } from './shard.js';

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  readonly queue: JobQueue;
  /** This instance's place in the cluster. */
  readonly cluster: Pick<Cluster, 'balance'>;
  /** This process's id, recorded with each job it runs. */
  readonly id: string;
  /** How often to look for a new round. */
  readonly pollMs: number;
  readonly report: (event: RunnerEvent) => void;
}

/**
 * Every process's task: when the leader has published a new round, run this instance's shard of
 * the queue for it (the jobs whose thread is in `[index, index + threads)`), and record them.
 * Runs until `signal` aborts.
 */
export async function runWorker(signal: AbortSignal, { queue, cluster, id, pollMs, report }: WorkerOptions): Promise<void> {
  let lastRound = 0;
  while (!signal.aborted) {
    try {
      const schedule = await queue.schedule();
      const balance = cluster.balance;
      if (schedule && schedule.round !== lastRound && balance.index >= 0) {
        const mine = shardOf(await queue.jobs(), balance);
        await queue.done(schedule.round, mine, id); // the jobs' real work goes here
        report({ event: 'jobs', round: schedule.round, ...balance, jobs: mine.map((job) => job.id) });
        lastRound = schedule.round;
      }
    } catch (error) {
      if (signal.aborted) return;
      report({ event: 'error', where: 'worker', message: String(error) });
    }
    await sleep(pollMs, undefined, { signal }).catch(() => undefined);
  }
}
