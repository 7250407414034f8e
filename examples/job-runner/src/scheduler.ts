import { setTimeout as sleep } from 'node:timers/promises';
import type { RunnerEvent } from './events.js';
import type { JobQueue } from './JobQueue.js';

/** Options of {@link runScheduler}. */
export interface SchedulerOptions {
  readonly queue: JobQueue;
  /** This process's id, recorded in each schedule. */
  readonly id: string;
  /** The pause between two rounds. */
  readonly periodMs: number;
  /** How long preparing a round takes: a stand-in for the real work of a leader-only task. */
  readonly workMs: number;
  readonly report: (event: RunnerEvent) => void;
}

/**
 * The leader-only task: every period, read the current round, prepare the next one and publish
 * it, fenced by this leadership's token. It runs until `leadership` aborts (the node lost or left
 * leadership), and also ends when a write is rejected: a higher token has written, so whatever
 * this process still believes, another leader exists.
 */
export async function runScheduler(leadership: AbortSignal, token: bigint, options: SchedulerOptions): Promise<void> {
  const { queue, id, periodMs, workMs, report } = options;
  while (!leadership.aborted) {
    try {
      const round = (await queue.schedule())?.round ?? 0;
      const previousDone = Object.keys(await queue.results(round)).length;
      report({ event: 'task-start', token, round });
      await sleep(workMs, undefined, { signal: leadership });
      const { accepted, highest } = await queue.publish({ round: round + 1, by: id, previousDone }, token);
      report({ event: 'task-write', token, round: round + 1, accepted, highest });
      if (!accepted) return;
    } catch (error) {
      if (leadership.aborted) return;
      report({ event: 'error', where: 'scheduler', message: String(error) });
    }
    await sleep(periodMs, undefined, { signal: leadership }).catch(() => undefined);
  }
}
