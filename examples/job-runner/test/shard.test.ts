import { describe, expect, it } from 'vitest';
import { shardOf, type Balance, type Job } from '../src/shard.js';

const queue = (n: number): Job[] => Array.from({ length: n }, (_, seq) => ({ id: `job-${seq}`, seq }));

/** The balances of a converged cluster whose instances run `threads` threads each, in order. */
function converged(threads: readonly number[]): Balance[] {
  const total = threads.reduce((a, b) => a + b, 0);
  let index = 0;
  return threads.map((t) => {
    const balance = { index, threads: t, total };
    index += t;
    return balance;
  });
}

describe('shardOf', () => {
  it('gives the instances of a converged cluster disjoint shards that together hold every job', () => {
    for (const threads of [[1], [1, 1, 1], [2, 1, 4], [3, 3], [1, 5, 1, 1]]) {
      for (const n of [0, 1, 7, 12, 40]) {
        const shards = converged(threads).map((balance) => shardOf(queue(n), balance).map((job) => job.id));
        const all = shards.flat();
        expect(new Set(all).size, `${threads} / ${n}`).toBe(all.length);
        expect(all.sort(), `${threads} / ${n}`).toEqual(queue(n).map((job) => job.id).sort());
      }
    }
  });

  it('gives thread i of total t the jobs whose sequence number is i mod t', () => {
    expect(shardOf(queue(12), { index: 1, threads: 1, total: 3 }).map((job) => job.id)).toEqual(['job-1', 'job-4', 'job-7', 'job-10']);
  });

  it('keeps every job on its thread when jobs are added to the queue', () => {
    const balance = { index: 2, threads: 2, total: 5 };
    const before = shardOf(queue(10), balance);
    const after = shardOf(queue(20), balance);
    expect(after.slice(0, before.length)).toEqual(before);
  });

  it('gives no job to an instance that is not a member', () => {
    expect(shardOf(queue(12), { index: -1, threads: 1, total: 2 })).toEqual([]);
  });
});
