import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@roster/testing';
import { DatabaseOperations } from '../src/backend/DatabaseOperations.js';
import { resolveBackendOptions } from '../src/backend/backendOptions.js';
import type { ConnectBackOff } from '../src/backend/ConnectBackOff.js';
import { StoreUnavailableError } from '../src/errors.js';
import { withDeadline } from '../src/util/deadline.js';

/** DatabaseOperations over a pool of one connection, each statement taking `serviceMs`; the back-off's calls counted. */
function operations(clock: VirtualClock, serviceMs: number) {
  const told = { succeeded: 0, failed: 0 };
  const backOff = { succeeded: () => told.succeeded++, failed: () => told.failed++ } as unknown as ConnectBackOff;
  const sent: string[] = [];
  const ops = new DatabaseOperations({
    ...resolveBackendOptions({ clock, commandTimeoutMs: 1000 }),
    table: 'roster_kv',
    target: 'postgres://db/roster',
    backend: 'PostgresKV',
    store: 'postgres',
    backOff,
    poolSize: 1,
    closed: () => false,
    tableMissing: () => false,
    ensureTable: async () => {},
    mapError: (error) => error,
  });
  const statement = (name: string) => async (deadline: AbortSignal): Promise<string> => {
    // As PostgresKV: a connection obtained after the caller gave up is handed back unused.
    if (deadline.aborted) throw deadline.reason;
    sent.push(name);
    await new Promise<void>((resolve) => clock.setTimer(resolve, serviceMs));
    return name;
  };
  return { ops, told, sent, statement };
}

describe('DatabaseOperations', () => {
  it("an operation still waiting for a connection when its caller's deadline passes is never sent, its timeout is marked queued, and the back-off is not told of it", async () => {
    const clock = new VirtualClock();
    const { ops, told, sent, statement } = operations(clock, 100);
    const busy = ops.run('set', 'k', undefined, statement('busy'));
    const ping = withDeadline(clock, 50, 'PING', (signal) => ops.run('exchange', 'id 0', { signal }, statement('ping'))).catch((error: unknown) => error);
    await clock.advance(50);
    const error = await ping;
    expect(StoreUnavailableError.is(error) && error.timedOut && error.queued).toBe(true);
    await clock.advance(100);
    expect(await busy).toBe('busy');
    expect(sent).toEqual(['busy']);
    // The busy statement's answer only: the queued PING says nothing of the server.
    expect(told).toEqual({ succeeded: 1, failed: 0 });
  });

  it("a caller's timeout of a statement sent at once may be the server's: not marked queued; the back-off learns from the statement's own outcome", async () => {
    const clock = new VirtualClock();
    const { ops, told, sent, statement } = operations(clock, 100);
    const slow = withDeadline(clock, 50, 'PING', (signal) => ops.run('exchange', 'id 0', { signal }, statement('ping'))).catch((error: unknown) => error);
    await clock.advance(50);
    const error = await slow;
    expect(StoreUnavailableError.is(error) && error.timedOut && !error.queued).toBe(true);
    expect(sent).toEqual(['ping']);
    await clock.advance(100);
    expect(told).toEqual({ succeeded: 1, failed: 0 });
  });

  it('an urgent operation (a lease renewal) takes the connection before the others waiting', async () => {
    const clock = new VirtualClock();
    const { ops, sent, statement } = operations(clock, 10);
    const all = [ops.run('set', 'k', undefined, statement('busy')), ops.run('exchange', 'id 0', undefined, statement('ping')), ops.run('compareAndSet', 'leader 0', { urgent: true }, statement('renew')), ops.run('exchange', 'id 1', undefined, statement('pong'))];
    await clock.advance(100);
    await Promise.all(all);
    expect(sent).toEqual(['busy', 'renew', 'pong', 'ping']);
  });
});
