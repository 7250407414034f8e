/**
 * A real `redis-server` for the tests: @roster/testing's `LocalRedis`, the system binary
 * (`$REDISMS_SYSTEM_BINARY`, else the first `redis-server` on `PATH`) on a free loopback port,
 * without persistence, in a temp directory. Always `stop()` it, e.g. in `afterAll`; it is also
 * SIGKILLed when the test process exits.
 */
import { LocalRedis } from '@roster/testing';

/** A running `redis-server`: `host`, `port`, `url` (`redis://127.0.0.1:<port>`), `stop()` (idempotent). */
export type TestRedis = LocalRedis;

/** Starts a `redis-server` on a free loopback port. */
export function startRedis(): Promise<TestRedis> {
  return LocalRedis.start();
}
