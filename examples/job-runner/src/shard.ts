/** A job of the queue: its id and its sequence number (its score in the queue). */
export interface Job {
  readonly id: string;
  readonly seq: number;
}

/** This instance's place in the cluster, as `@roster/cluster` reports it. */
export interface Balance {
  readonly index: number;
  readonly threads: number;
  readonly total: number;
}

/**
 * The jobs this instance runs: job `seq` belongs to thread `seq mod total`, and this instance
 * holds the threads `index … index + threads − 1`. When every instance agrees on the total and
 * the ranges are disjoint and cover `0 … total − 1` (a converged cluster), every job is run by
 * exactly one instance. A job keeps its thread when other jobs are added. None while this
 * instance is not a member (index −1).
 */
export function shardOf(jobs: readonly Job[], { index, threads, total }: Balance): Job[] {
  if (index < 0 || total <= 0) return [];
  return jobs.filter((job) => {
    const thread = job.seq % total;
    return thread >= index && thread < index + threads;
  });
}
