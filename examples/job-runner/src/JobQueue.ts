import type { Redis } from 'ioredis';
import { fencedWrite, readFenced, type FencedWriteResult } from './fencedWrite.js';
import type { Job } from './shard.js';

/** The schedule the leader publishes: the round the workers should run now. */
export interface Schedule {
  readonly round: number;
  /** Who scheduled it. */
  readonly by: string;
  /** How many jobs of the round before were done when it was scheduled. */
  readonly previousDone: number;
}

/** How long the record of a round's results is kept. */
const RESULTS_TTL_S = 600;

/**
 * The service's own data, in Redis under `<prefix>:`:
 * - `jobs`: the queue, a sorted set of job ids scored by sequence number;
 * - `schedule`: the current round, a resource written only by {@link fencedWrite};
 * - `round:<n>`: a hash of the jobs run in round n, each with the worker that ran it.
 */
export class JobQueue {
  readonly scheduleKey: string;
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix = 'job-runner') {
    this.#redis = redis;
    this.#prefix = prefix;
    this.scheduleKey = `${prefix}:schedule`;
  }

  /** Adds `job-0 … job-(n−1)` when missing; every instance may call it (ZADD NX). */
  async seed(n: number): Promise<void> {
    if (n === 0) return;
    const args = Array.from({ length: n }, (_, i) => [String(i), `job-${i}`]).flat();
    await this.#redis.zadd(`${this.#prefix}:jobs`, 'NX', ...args);
  }

  /** Every job, in sequence order. */
  async jobs(): Promise<Job[]> {
    const flat = await this.#redis.zrange(`${this.#prefix}:jobs`, 0, -1, 'WITHSCORES');
    const jobs: Job[] = [];
    for (let i = 0; i < flat.length; i += 2) jobs.push({ id: flat[i]!, seq: Number(flat[i + 1]) });
    return jobs;
  }

  /** The schedule, with the fencing token that wrote it; `undefined` before the first round. */
  async schedule(): Promise<(Schedule & { token: bigint }) | undefined> {
    const fenced = await readFenced(this.#redis, this.scheduleKey);
    return fenced && { ...(JSON.parse(fenced.value) as Schedule), token: fenced.token };
  }

  /** Publishes a schedule, fenced by the leader's token (see {@link fencedWrite}). */
  publish(schedule: Schedule, token: bigint): Promise<FencedWriteResult> {
    return fencedWrite(this.#redis, this.scheduleKey, token, JSON.stringify(schedule));
  }

  /** Records that `worker` ran `jobs` in `round`. */
  async done(round: number, jobs: readonly Job[], worker: string): Promise<void> {
    if (jobs.length === 0) return;
    const key = `${this.#prefix}:round:${round}`;
    await this.#redis.multi().hset(key, ...jobs.flatMap((job) => [job.id, worker])).expire(key, RESULTS_TTL_S).exec();
  }

  /** Which worker ran each job of `round`. */
  results(round: number): Promise<Record<string, string>> {
    return this.#redis.hgetall(`${this.#prefix}:round:${round}`);
  }
}
