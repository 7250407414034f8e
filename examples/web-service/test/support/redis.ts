/**
 * A real `redis-server` for the tests: @roster/testing's `LocalRedis`, the system binary
 * (`$REDIS_SERVER`, else @roster/testing's `findRedisServer`: `redis-server` on `PATH`) on a free
 * loopback port, without persistence, in a temp directory. Always `stop()` it, e.g. in `afterAll`;
 * it is also SIGKILLed when the test process exits.
 */
import { LocalRedis } from '@roster/testing';

/** A running `redis-server`: `port`, `url` (`redis://127.0.0.1:<port>`), `stop()` (idempotent). */
export type TestRedis = LocalRedis;

/** Starts a `redis-server` on a free loopback port and waits for it to answer PING. */
export function startRedis(): Promise<TestRedis> {
  return LocalRedis.start({ ...(process.env.REDIS_SERVER && { binary: process.env.REDIS_SERVER }) });
}
