import { KeyUnavailableError, MemoryKV, StoreUnavailableError } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { InstrumentedKV, errorKind } from '../src/metrics/InstrumentedKV.js';
import { noopMetrics, type RosterMetrics, type StoreErrorKind, type StoreOperation } from '../src/metrics/RosterMetrics.js';

/** A RosterMetrics that keeps every store operation and round trip it is told of. */
class RecordingMetrics implements RosterMetrics {
  readonly operations: { operation: StoreOperation; ms: number; error: StoreErrorKind | undefined }[] = [];
  readonly roundTrips: number[] = [];
  readonly nonceMoves: string[] = [];
  settings = noopMetrics.settings;
  role = noopMetrics.role;
  leader = noopMetrics.leader;
  members = noopMetrics.members;
  election = noopMetrics.election;
  malformedValues = noopMetrics.malformedValues;
  memberPongRoundTrips = noopMetrics.memberPongRoundTrips;
  slowRenewals = noopMetrics.slowRenewals;
  storeOperation(operation: StoreOperation, seconds: number, error: StoreErrorKind | undefined): void {
    this.operations.push({ operation, ms: Math.round(seconds * 1000), error });
  }
  pongRoundTrip(seconds: number): void {
    this.roundTrips.push(Math.round(seconds * 1000));
  }
  nonceMove(kind: string): void {
    this.nonceMoves.push(kind);
  }
}

function setup(deadlineMs?: number) {
  const clock = new VirtualClock();
  const faults = new FaultInjector({ clock, seed: 7 });
  const metrics = new RecordingMetrics();
  const kv = new InstrumentedKV(faults.view(new MemoryKV({ clock })), { metrics, clock, ...(deadlineMs !== undefined && { deadlineMs }) });
  return { clock, faults, metrics, kv };
}

describe('InstrumentedKV', () => {
  it('records every operation with its outcome and its duration on the injected clock, and passes values through', async () => {
    const { clock, faults, metrics, kv } = setup();
    faults.latency({ minMs: 30, maxMs: 30, ops: ['get'] });
    await kv.set('a', '1');
    const read = kv.get('a');
    await clock.advance(30);
    expect(await read).toBe('1');
    expect(await kv.append('a', '2')).toBe(2);
    expect(await kv.compareAndSet('a', '12', '3')).toMatchObject({ swapped: true });
    expect(await kv.take('a')).toBe('3');
    expect(await kv.delete('a')).toBe(false);
    expect(metrics.operations).toEqual([
      { operation: 'set', ms: 0, error: undefined },
      { operation: 'get', ms: 30, error: undefined },
      { operation: 'append', ms: 0, error: undefined },
      { operation: 'compareAndSet', ms: 0, error: undefined },
      { operation: 'take', ms: 0, error: undefined },
      { operation: 'delete', ms: 0, error: undefined },
    ]);
    expect(kv.health).toMatchObject({ lastSuccessAt: 30, lastError: undefined, inFlight: 0 });
  });

  it('classifies failures by the typed error code and rethrows the same error', async () => {
    const { faults, metrics, kv } = setup();
    const key = faults.keyUnavailable('k');
    const keyError = await kv.get('k').catch((error: unknown) => error);
    expect(KeyUnavailableError.is(keyError)).toBe(true);
    key.heal();
    faults.storeOutage();
    const storeError = await kv.set('k', 'v').catch((error: unknown) => error);
    expect(StoreUnavailableError.is(storeError)).toBe(true);
    expect(metrics.operations.map((o) => [o.operation, o.error])).toEqual([
      ['get', 'key_unavailable'],
      ['set', 'store_unavailable'],
    ]);
    expect(kv.health.lastError?.kind).toBe('store_unavailable');
    expect(kv.health.lastSuccessAt).toBeUndefined();
  });

  it('counts an answer that came after the node’s deadline as a timeout, not as a success', async () => {
    const { clock, faults, metrics, kv } = setup(100);
    faults.latency({ minMs: 150, maxMs: 150 });
    const late = kv.set('k', 'v');
    await clock.advance(150);
    await late;
    expect(metrics.operations).toEqual([{ operation: 'set', ms: 150, error: 'timeout' }]);
    expect(kv.health.lastSuccessAt).toBeUndefined();
    expect(kv.health.lastError?.kind).toBe('timeout');
  });

  it('times a follower’s PING → PONG round trip from the PING written to the matching PONG read at the same key', async () => {
    const { clock, metrics, kv } = setup();
    await kv.set('id a 0', 'PING 1');
    await clock.advance(40);
    expect(await kv.get('id a 0')).toBe('PING 1'); // not answered yet
    await kv.compareAndSet('id a 0', 'PING 1', 'PONG 1'); // the leader answers
    await clock.advance(25);
    await kv.get('id a 0');
    await kv.get('id a 0'); // the same PONG read again is not a second round trip
    await kv.set('id a 0', 'PING 2');
    await kv.set('id a 0', 'PONG 1');
    await kv.get('id a 0'); // an old PONG does not answer PING 2
    expect(metrics.roundTrips).toEqual([65]);
  });

  it('maps a store error caused by a command timeout or a node’s deadline to `timeout`, and anything untyped to `other`', () => {
    expect(errorKind(new StoreUnavailableError('get: Command timed out'))).toBe('timeout');
    expect(errorKind(new StoreUnavailableError('publish took longer than 100 ms'))).toBe('timeout');
    expect(errorKind(new StoreUnavailableError('connection refused', { cause: new Error('ECONNREFUSED') }))).toBe('store_unavailable');
    expect(errorKind(new Error('boom'))).toBe('other');
  });

  it('counts a write to a compound key at another nonce than its last write as a nonce move, by key kind; reads are not moves', async () => {
    const { metrics, kv } = setup();
    const ns = 'roster/billing/prod/';
    await kv.compareAndSet(`${ns}leader 0`, null, 'x');
    await kv.compareAndSet(`${ns}leader 0`, 'x', 'y');
    await kv.get(`${ns}leader 1`); // a window read
    await kv.compareAndSet(`${ns}leader 1`, null, 'y'); // leader 0 was unavailable
    await kv.append(`${ns}join 0`, ' a');
    await kv.append(`${ns}join 2`, ' a');
    await kv.set(`${ns}id/web-1 0`, 'PING 1');
    await kv.set(`${ns}id/web-1 1`, 'PING 2');
    await kv.set(`${ns}era 0`, '3');
    await kv.set('plain key', 'v');
    expect(metrics.nonceMoves).toEqual(['leader', 'join', 'id']);
  });
});
