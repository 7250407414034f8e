import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedWrite, readFenced } from '../src/fencedWrite.js';
import { startRedis, type TestRedis } from './support/redis.js';

let server: TestRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('fencedWrite on a real redis-server', () => {
  it('accepts the first write, a write with the same token and one with a higher token', async () => {
    expect(await fencedWrite(redis, 'r1', 2047n, 'a')).toEqual({ accepted: true, highest: 2047n });
    expect(await fencedWrite(redis, 'r1', 2047n, 'b')).toEqual({ accepted: true, highest: 2047n });
    expect(await fencedWrite(redis, 'r1', 3071n, 'c')).toEqual({ accepted: true, highest: 3071n });
    expect(await readFenced(redis, 'r1')).toEqual({ token: 3071n, value: 'c' });
  });

  it('rejects a write with a token below the highest seen and leaves the value alone', async () => {
    await fencedWrite(redis, 'r2', 3071n, 'new leader');
    expect(await fencedWrite(redis, 'r2', 2047n, 'deposed leader')).toEqual({ accepted: false, highest: 3071n });
    expect(await readFenced(redis, 'r2')).toEqual({ token: 3071n, value: 'new leader' });
  });

  it('compares tokens of different lengths, and beyond 2^53, exactly', async () => {
    await fencedWrite(redis, 'r3', 100n, 'x');
    expect((await fencedWrite(redis, 'r3', 99n, 'y')).accepted).toBe(false);
    await fencedWrite(redis, 'r4', 9_007_199_254_740_993n, 'x');
    expect((await fencedWrite(redis, 'r4', 9_007_199_254_740_992n, 'y')).accepted).toBe(false);
    expect((await fencedWrite(redis, 'r4', 9_007_199_254_740_994n, 'z')).accepted).toBe(true);
  });

  it('reads nothing from a resource never written', async () => {
    expect(await readFenced(redis, 'never')).toBeUndefined();
  });

  it('refuses a negative token before touching Redis', async () => {
    await expect(fencedWrite(redis, 'r5', -1n, 'x')).rejects.toThrow(RangeError);
    expect(await readFenced(redis, 'r5')).toBeUndefined();
  });
});
