import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, KeyUnavailableError, MemoryKV, RosterError, StoreUnavailableError, type KV } from '@roster/kv-adapter';
import { FaultInjector, formatOperation, MemoryLogger, SeededRandom, VirtualClock, type FaultyKV } from '../src/index.js';
import { kvContract } from '../../kv-adapter/test/contract.js';

kvContract('FaultyKV with no faults', async () => {
  const inner = new MemoryKV();
  const faults = new FaultInjector({ clock: new VirtualClock(), seed: 1 });
  return { kv: faults.view(inner, 'A'), done: () => inner.close() };
});

/** A store on a virtual clock, an injector, and views for nodes A and B on the same store. */
function setup(seed = 7) {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed });
  return { clock, store, faults, a: faults.view(store, 'A'), b: faults.view(store, 'B') };
}

type Settled<T> = { status: 'pending' } | { status: 'ok'; value: T } | { status: 'error'; error: unknown };

/** Tracks a promise so a test can ask whether it has settled yet, without awaiting it. */
function track<T>(promise: Promise<T>): { readonly state: Settled<T> } {
  const box: { state: Settled<T> } = { state: { status: 'pending' } };
  promise.then(
    (value) => (box.state = { status: 'ok', value }),
    (error: unknown) => (box.state = { status: 'error', error }),
  );
  return box;
}

/** Lets queued promise callbacks run without moving the clock. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const code = (error: unknown): string | undefined => (RosterError.is(error) ? error.code : undefined);

describe('FaultInjector and FaultyKV', () => {
  it('keyUnavailable with forMs refuses the key for that long and heals on time, other keys served', async () => {
    const { clock, faults, a, store } = setup();
    await store.set('k', 'v');
    const fault = faults.keyUnavailable('k', { forMs: 1000 });

    await expect(a.get('k')).rejects.toSatisfy(KeyUnavailableError.is);
    await expect(a.get('other')).resolves.toBeNull();
    await clock.advance(999);
    await expect(a.set('k', 'w')).rejects.toThrow(KeyUnavailableError);
    expect(fault.active).toBe(true);
    await clock.advance(1);
    expect(fault.active).toBe(false);
    await expect(a.get('k')).resolves.toBe('v');
    expect(fault.hits).toBe(2);
  });

  it('keyUnavailable without forMs lasts until healed', async () => {
    const { clock, faults, a } = setup();
    const fault = faults.keyUnavailable('k');
    await clock.advance(1_000_000);
    await expect(a.get('k')).rejects.toSatisfy(KeyUnavailableError.is);
    fault.heal();
    fault.heal();
    await expect(a.get('k')).resolves.toBeNull();
  });

  it('selects keys by exact key, prefix, RegExp, predicate and list', async () => {
    const { faults, a } = setup();
    const probe = async (key: string): Promise<boolean> =>
      a.get(key).then(
        () => true,
        () => false,
      );
    const cases = [
      { selector: 'leader 0', down: ['leader 0'], up: ['leader 1', 'leader 00'] },
      { selector: { prefix: 'leader ' }, down: ['leader 0', 'leader 7'], up: ['join 0', 'leader'] },
      { selector: /^ping \d$/g, down: ['ping 1', 'ping 1', 'ping 2'], up: ['ping 10', 'pong 1'] },
      { selector: (k: string) => k.endsWith(' 3'), down: ['x 3'], up: ['x 4'] },
      { selector: ['a', { prefix: 'b/' }], down: ['a', 'b/c'], up: ['ab', 'c/b'] },
    ];
    for (const { selector, down, up } of cases) {
      const fault = faults.keyUnavailable(selector);
      for (const key of down) expect(await probe(key), `${String(selector)} should refuse ${key}`).toBe(false);
      for (const key of up) expect(await probe(key), `${String(selector)} should serve ${key}`).toBe(true);
      fault.heal();
    }
  });

  it('a rolled-back key is away for forMs, then shows the value it had when it went away, then fails at random while flaky', async () => {
    const { clock, store, faults, a, b } = setup();
    await a.set('leader 0', 'version 1');
    await a.set('leader 1', 'other');
    faults.keyRollback({ prefix: 'leader ' }, store, { forMs: 1000, flakyMs: 500, flakyProbability: 1 });
    await store.set('leader 0', 'version 2'); // written meanwhile (as by a failover replica): lost
    await store.set('leader 2', 'new'); // created meanwhile: gone
    await expect(a.get('leader 0')).rejects.toBeInstanceOf(KeyUnavailableError);
    await expect(b.get('leader 1')).rejects.toBeInstanceOf(KeyUnavailableError);
    await clock.advance(1000);
    expect(await store.get('leader 0')).toBe('version 1');
    expect(await store.get('leader 1')).toBe('other');
    expect(await store.get('leader 2')).toBeNull();
    await expect(a.get('leader 0')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await a.get('era 0')).toBeNull();
    await clock.advance(500);
    expect(await a.get('leader 0')).toBe('version 1');
  });

  it('a rolled-back key checks its options', () => {
    const { store, faults } = setup();
    expect(() => faults.keyRollback('k', store, { forMs: -1 })).toThrow(ConfigError);
    expect(() => faults.keyRollback('k', store, { forMs: 10, flakyProbability: 2 })).toThrow(ConfigError);
    expect(() => faults.keyRollback('k', {} as MemoryKV, { forMs: 10 })).toThrow(ConfigError);
  });

  it('a hanging key fault holds each operation until the caller aborts it or the fault ends, as a frozen shard does', async () => {
    const { clock, faults, a, store } = setup();
    await store.set('leader 0', 'v');
    expect(() => faults.keyUnavailable('leader 0', { hang: true })).toThrow(/forMs/);
    faults.keyUnavailable('leader 0', { hang: true, forMs: 1000 });
    const caller = new AbortController();
    const aborted = track(a.get('leader 0', { signal: caller.signal }));
    const waited = track(a.get('leader 0'));
    const other = track(a.get('leader 1'));
    await clock.advance(50);
    expect(other.state).toEqual({ status: 'ok', value: null });
    expect(aborted.state.status).toBe('pending');
    caller.abort(new Error('deadline'));
    await clock.advance(0);
    expect((aborted.state as { error: Error }).error.message).toBe('deadline');
    await clock.advance(949);
    expect(waited.state.status).toBe('pending');
    await clock.advance(1);
    expect(code((waited.state as { error: unknown }).error)).toBe('KV_KEY_UNAVAILABLE');
    expect(await a.get('leader 0')).toBe('v');
  });

  it('a store outage refuses every operation, time() included, and stallMs delays the refusal on the clock', async () => {
    const { clock, faults, a, store } = setup();
    await store.set('k', 'v');
    faults.storeOutage({ forMs: 500 });
    for (const op of [a.get('k'), a.set('k', 'x'), a.delete('k'), a.append('k', 'x'), a.take('k'), a.time()]) {
      await expect(op).rejects.toSatisfy(StoreUnavailableError.is);
    }
    expect(await store.get('k')).toBe('v');
    await clock.advance(500);

    faults.storeOutage({ stallMs: 2000 });
    const start = clock.now();
    const op = track(a.get('k'));
    await clock.advance(1999);
    expect(op.state.status).toBe('pending');
    await clock.advance(1);
    expect(op.state.status).toBe('error');
    expect(code((op.state as { error: unknown }).error)).toBe('KV_STORE_UNAVAILABLE');
    expect(clock.now() - start).toBe(2000);
    expect(faults.operations().at(-1)).toMatchObject({ op: 'get', at: start, doneAt: start + 2000, fault: 'storeOutage#2' });
  });

  it('per-node views: A cannot reach a key that B, on the same store, reads and writes', async () => {
    const { faults, a, b } = setup();
    faults.keyUnavailable('leader 0', { node: 'A' });
    await b.set('leader 0', 'B leads');
    await expect(a.get('leader 0')).rejects.toSatisfy(KeyUnavailableError.is);
    await expect(b.get('leader 0')).resolves.toBe('B leads');
    await expect(a.get('leader 1')).resolves.toBeNull();

    faults.storeOutage({ node: 'B' });
    await expect(b.get('leader 1')).rejects.toSatisfy(StoreUnavailableError.is);
    await expect(a.set('leader 1', 'A leads')).resolves.toBeUndefined();

    const anonymous = faults.view(a.inner);
    await expect(anonymous.get('leader 0')).resolves.toBe('B leads');
  });

  it('a store outage wins over a key fault on the same key', async () => {
    const { faults, a } = setup();
    faults.keyUnavailable('k');
    faults.storeOutage();
    await expect(a.get('k')).rejects.toSatisfy(StoreUnavailableError.is);
  });

  it('latency delay-then-apply: the write reaches the store after a seeded delay within minMs…maxMs', async () => {
    const { clock, faults, a, store } = setup();
    faults.latency({ minMs: 100, maxMs: 200 });
    const start = clock.now();
    const write = track(a.set('k', 'v'));
    await clock.advance(99);
    expect(write.state.status).toBe('pending');
    expect(await store.get('k')).toBeNull();
    const took = await clock.advanceUntil(() => write.state.status !== 'pending', 200);
    expect(write.state.status).toBe('ok');
    expect(await store.get('k')).toBe('v');
    const record = faults.operations().at(-1)!;
    expect(record.doneAt - record.at).toBeGreaterThanOrEqual(100);
    expect(record.doneAt - record.at).toBeLessThanOrEqual(200);
    expect(record.doneAt - start).toBe(99 + took!);
    expect(record.fault).toBe('latency#1');
  });

  it('latency apply-then-delay: the write is in the store at once, the caller hears after the delay', async () => {
    const { clock, faults, a, store } = setup();
    faults.latency({ minMs: 300, maxMs: 300, mode: 'apply-then-delay', ops: ['set'] });
    const write = track(a.set('k', 'v'));
    await flush();
    expect(await store.get('k')).toBe('v');
    expect(write.state.status).toBe('pending');
    await expect(a.get('k')).resolves.toBe('v'); // get is not in `ops`: not delayed
    await clock.advance(300);
    expect(write.state.status).toBe('ok');
  });

  it('latency keys and node limits, and several latency faults add up', async () => {
    const { clock, faults, a, b } = setup();
    faults.latency({ minMs: 50, maxMs: 50, keys: { prefix: 'slow/' } });
    faults.latency({ minMs: 25, maxMs: 25, node: 'A' });
    const timeOf = async (view: FaultyKV, key: string): Promise<number> => {
      const start = clock.now();
      const op = track(view.get(key));
      await flush();
      await clock.advanceUntil(() => op.state.status !== 'pending', 1000);
      return clock.now() - start;
    };
    expect(await timeOf(a, 'slow/x')).toBe(75);
    expect(await timeOf(a, 'fast/x')).toBe(25);
    expect(await timeOf(b, 'slow/x')).toBe(50);
    expect(await timeOf(b, 'fast/x')).toBe(0);
  });

  it('capacity serves operations one after another, first come first served, an abandoned one still taking its turn and applied; a full queue refuses at once', async () => {
    const { clock, faults, a, b, store } = setup();
    // 100 a second: 10 ms each; the queue holds at most 25 ms of waiting.
    faults.capacity({ opsPerSecond: 100, maxQueueMs: 25 });
    const first = track(a.set('k', '1'));
    const abandoned = new AbortController();
    const second = track(b.set('k', '2', { signal: abandoned.signal }));
    const third = track(a.get('k'));
    await flush();
    abandoned.abort();
    // A fourth would wait 30 ms: refused at once, never applied.
    await expect(b.set('k', '4')).rejects.toSatisfy((e: unknown) => StoreUnavailableError.is(e) && /queue is full/.test((e as Error).message));
    await clock.advance(10);
    expect(first.state.status).toBe('ok');
    expect(await store.get('k')).toBe('1');
    // Its caller stopped waiting at once; the server does not know, and applies it in its turn.
    expect(second.state.status).toBe('error');
    await clock.advance(10);
    expect(await store.get('k')).toBe('2');
    // The read waited behind it (20–30 ms).
    expect(third.state.status).toBe('pending');
    await clock.advance(10);
    expect(third.state).toEqual({ status: 'ok', value: '2' });
    expect(() => faults.capacity({ opsPerSecond: 0 })).toThrow(ConfigError);
    expect(() => faults.capacity({ opsPerSecond: 10, maxQueueMs: -1 })).toThrow(ConfigError);
  });

  it('failures fail about `probability` of the operations, never at 0 and always at 1', async () => {
    const { faults, a } = setup(123);
    const count = async (probability: number): Promise<number> => {
      const fault = faults.failures({ probability });
      let failed = 0;
      for (let i = 0; i < 1000; i++) {
        await a.get('k').catch((error: unknown) => {
          expect(code(error)).toBe('KV_STORE_UNAVAILABLE');
          failed++;
        });
      }
      fault.heal();
      return failed;
    };
    expect(await count(0)).toBe(0);
    expect(await count(1)).toBe(1000);
    const some = await count(0.3);
    expect(some).toBeGreaterThan(230);
    expect(some).toBeLessThan(370);
  });

  it('a failure before applying leaves the store as it was; one after applying leaves the write done', async () => {
    const { faults, a, store } = setup();
    const before = faults.failures({ probability: 1, ops: ['set', 'append'] });
    await expect(a.set('k', 'v')).rejects.toSatisfy(StoreUnavailableError.is);
    expect(await store.get('k')).toBeNull();
    before.heal();

    faults.failures({ probability: 1, after: true, keys: 'k' });
    await expect(a.set('k', 'v')).rejects.toSatisfy(StoreUnavailableError.is);
    await expect(a.append('k', '+')).rejects.toThrow(/reply lost/);
    expect(await store.get('k')).toBe('v+');
    await expect(a.set('other', 'x')).resolves.toBeUndefined();
  });

  it('at() injects a fault at a clock time; healing its handle cancels it or heals the fault it made', async () => {
    const { clock, faults, a } = setup();
    const outage = faults.at(1000, () => faults.storeOutage({ forMs: 500 }));
    const cancelled = faults.at(1200, () => faults.keyUnavailable('k'));
    expect(outage.active).toBe(true);
    cancelled.heal();
    await clock.advance(999);
    await expect(a.get('k')).resolves.toBeNull();
    await clock.advance(1);
    await expect(a.get('k')).rejects.toSatisfy(StoreUnavailableError.is);
    expect(outage.hits).toBe(1);
    await clock.advance(500);
    await expect(a.get('k')).resolves.toBeNull();
    expect(outage.active).toBe(false);

    const later = faults.at(5000, () => faults.keyUnavailable('k'));
    await clock.advance(5000);
    await expect(a.get('k')).rejects.toSatisfy(KeyUnavailableError.is);
    later.heal();
    await expect(a.get('k')).resolves.toBeNull();

    let ran = false;
    faults.at(0, () => (ran = true)); // in the past: runs on the next timer turn
    await clock.advance(0);
    expect(ran).toBe(true);
  });

  it('a scheduled action that throws is logged, never thrown from the timer', async () => {
    const clock = new VirtualClock();
    const logger = new MemoryLogger();
    const faults = new FaultInjector({ clock, seed: 1, logger });
    faults.at(10, () => {
      throw new Error('boom');
    });
    await clock.advance(10);
    expect(logger.entries).toMatchObject([{ level: 'error' }]);
  });

  it('healAll heals every fault and cancels every scheduled one', async () => {
    const { clock, faults, a } = setup();
    faults.storeOutage();
    faults.keyUnavailable('k', { node: 'A' });
    faults.latency({ minMs: 10, maxMs: 20 });
    faults.failures({ probability: 1 });
    faults.at(100, () => faults.storeOutage());
    expect(faults.stats().active).toBe(4);
    faults.healAll();
    expect(faults.faults).toEqual([]);
    await clock.advance(1000);
    const op = track(a.get('k'));
    await flush();
    expect(op.state).toEqual({ status: 'ok', value: null });
  });

  it('records every operation with node, key, outcome, code and fault, in a bounded log', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const seen: string[] = [];
    const faults = new FaultInjector({ clock, seed: 1, logCapacity: 3, onOperation: (r) => seen.push(formatOperation(r)) });
    const a = faults.view(store, 'A');
    faults.keyUnavailable('down', { node: 'A' });
    await a.set('k', 'hello');
    await a.get('k');
    await a.get('down').catch(() => {});
    await a.compareAndSet('k', 'nope', 'x');
    expect(seen).toHaveLength(4);
    expect(seen[0]).toMatch(/A +set "k" "hello" → ok$/);
    expect(seen[1]).toMatch(/get "k" → ok "hello"$/);
    expect(seen[2]).toMatch(/get "down" → KV_KEY_UNAVAILABLE \[keyUnavailable#1\]$/);
    expect(seen[3]).toMatch(/compareAndSet "k" "x" → ok not swapped, current "hello"$/);
    const log = faults.operations();
    expect(log.map((r) => r.seq)).toEqual([2, 3, 4]);
    expect(log[1]).toMatchObject({ node: 'A', op: 'get', key: 'down', outcome: 'error', code: 'KV_KEY_UNAVAILABLE' });
    expect(faults.stats()).toMatchObject({ created: 1, operations: 4, injected: { keyUnavailable: 1, storeOutage: 0 } });
  });

  it('shortens long values in the log', async () => {
    const { faults, a } = setup();
    await a.set('k', 'x'.repeat(10_000));
    expect(faults.operations()[0]!.value!.length).toBeLessThan(70);
  });

  it('closing a view leaves the inner store and the other views open', async () => {
    const { a, b, store } = setup();
    await a.close();
    await expect(a.get('k')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_CLOSED'));
    await b.set('k', 'v');
    expect(await store.get('k')).toBe('v');
    expect(a.capabilities).toBe(store.capabilities);
  });

  it('an abort during an injected delay rejects at once with the signal reason, and the write, already sent, still lands', async () => {
    const { clock, faults, a, store } = setup();
    faults.latency({ minMs: 1000, maxMs: 1000 });
    const controller = new AbortController();
    const op = track(a.set('k', 'v', { signal: controller.signal }));
    await clock.advance(10);
    controller.abort(new Error('stop'));
    await flush();
    expect(op.state).toMatchObject({ status: 'error', error: { message: 'stop' } });
    expect(await store.get('k')).toBeNull();
    // On the wire, a request reaches the store whether or not its caller still waits.
    await clock.advance(2000);
    expect(await store.get('k')).toBe('v');
  });

  it('connections: at most `size` operations out at once, the newest waiter served first; a waiter whose caller gives up, or that waits past `maxWaitMs`, is never sent', async () => {
    const { clock, faults, a, store } = setup();
    faults.connections({ node: 'A', size: 1, serviceMs: 10, maxWaitMs: 15 });
    const first = track(a.set('k', '1'));
    const abandoned = new AbortController();
    const second = track(a.set('k', '2', { signal: abandoned.signal }));
    const third = track(a.set('k', '3'));
    const fourth = track(a.get('k'));
    await flush();
    abandoned.abort(new Error('gave up'));
    await clock.advance(10);
    expect(first.state.status).toBe('ok');
    expect(second.state).toMatchObject({ status: 'error', error: { message: 'gave up' } });
    // Newest first: the read goes before the older write, which waits 15 ms for a connection and
    // is refused, never sent.
    await clock.advance(5);
    expect(third.state).toMatchObject({ status: 'error', error: { code: 'KV_STORE_UNAVAILABLE' } });
    expect(fourth.state.status).toBe('pending');
    await clock.advance(5);
    expect(fourth.state).toEqual({ status: 'ok', value: '1' });
    await clock.advance(100);
    expect(await store.get('k')).toBe('1');
    expect(faults.stats().injected.connections).toBe(4);
    expect(() => faults.connections({ size: 0, serviceMs: 1 })).toThrow(ConfigError);
    expect(() => faults.connections({ size: 1, serviceMs: -1 })).toThrow(ConfigError);
  });

  it('rejects bad options with a ConfigError naming the field', () => {
    const { faults } = setup();
    const field = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return ConfigError.is(error) ? error.field : 'not a ConfigError';
      }
      return undefined;
    };
    expect(field(() => new FaultInjector({ clock: new VirtualClock(), seed: 1.5 }))).toBe('seed');
    expect(field(() => faults.failures({ probability: 2 }))).toBe('probability');
    expect(field(() => faults.latency({ minMs: 10, maxMs: 5 }))).toBe('maxMs');
    expect(field(() => faults.latency({ minMs: -1, maxMs: 5 }))).toBe('minMs');
    expect(field(() => faults.storeOutage({ forMs: -1 }))).toBe('forMs');
    expect(field(() => faults.keyUnavailable(42 as unknown as string))).toBe('keys');
    expect(field(() => faults.failures({ probability: 0.5, ops: ['put' as 'set'] }))).toBe('ops');
    expect(field(() => faults.at(Number.NaN, () => {}))).toBe('timeMs');
  });

  it('the README example runs and prints what it says', async () => {
    const printed: unknown[] = [];
    const console = { log: (line: unknown) => printed.push(line) };

    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const faults = new FaultInjector({ clock, seed: 42 });
    const a = faults.view(store, 'A'); // node A's view of the store
    const b = faults.view(store, 'B'); // node B's view of the same store

    faults.keyUnavailable('leader 0', { node: 'A', forMs: 5000 }); // A cannot reach "leader 0" for 5 s
    faults.latency({ minMs: 5, maxMs: 50, node: 'B' }); // B's operations take 5 to 50 ms
    faults.at(10_000, () => faults.storeOutage({ forMs: 1000 })); // at t = 10 s the store is down for 1 s

    const write = b.set('leader 0', 'B');
    await clock.advance(50); // virtual time: nothing really waits
    await write;
    await a.get('leader 0').catch((error: RosterError) => console.log(error.code)); // KV_KEY_UNAVAILABLE
    await clock.advance(5000);
    console.log(await a.get('leader 0')); // B
    await clock.advance(5000);
    await a.get('leader 0').catch((error: RosterError) => console.log(error.code)); // KV_STORE_UNAVAILABLE

    for (const record of faults.operations()) console.log(formatOperation(record));

    expect(printed).toEqual([
      'KV_KEY_UNAVAILABLE',
      'B',
      'KV_STORE_UNAVAILABLE',
      '     0ms +32 B     set "leader 0" "B" → ok [latency#2]',
      '    50ms  +0 A     get "leader 0" → KV_KEY_UNAVAILABLE [keyUnavailable#1]',
      '  5050ms  +0 A     get "leader 0" → ok "B"',
      ' 10050ms  +0 A     get "leader 0" → KV_STORE_UNAVAILABLE [storeOutage#4]',
    ]);
  });
});

describe('SeededRandom', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const draw = (seed: number): number[] => {
      const r = new SeededRandom(seed);
      return Array.from({ length: 5 }, () => r.next());
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    for (const x of draw(3)) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe('replay', () => {
  /**
   * A small cluster-like run: three nodes on one store, each writing and reading in its own timer
   * loop, under random failures, latency, a scheduled outage and a per-node key fault.
   */
  async function run(seed: number): Promise<string[]> {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const faults = new FaultInjector({ clock, seed, logCapacity: 10_000 });
    faults.failures({ probability: 0.2 });
    faults.failures({ probability: 0.1, after: true, ops: ['set', 'append'] });
    faults.latency({ minMs: 0, maxMs: 40 });
    faults.latency({ minMs: 10, maxMs: 30, mode: 'apply-then-delay', node: 'B' });
    faults.at(300, () => faults.storeOutage({ forMs: 200, stallMs: 20 }));
    faults.at(600, () => faults.keyUnavailable({ prefix: 'leader ' }, { node: 'C', forMs: 300 }));

    for (const node of ['A', 'B', 'C']) {
      const kv = faults.view(store, node);
      let round = 0;
      const tick = (): void => {
        round++;
        void kv.set(`leader ${round % 2}`, `${node}${round}`).catch(() => {});
        void kv.append('join 0', ` ${node}`).catch(() => {});
        void kv.get('leader 0').catch(() => {});
        if (round < 40) clock.setTimer(tick, 25);
      };
      clock.setTimer(tick, 0);
    }
    await clock.advance(2000);
    return faults.operations().map(formatOperation);
  }

  it('the same seed gives the same history, operation for operation', async () => {
    const first = await run(2024);
    const second = await run(2024);
    expect(first.length).toBe(360);
    expect(second).toEqual(first);
    expect(first.some((line) => line.includes('failure#'))).toBe(true);
    expect(first.some((line) => line.includes('storeOutage#'))).toBe(true);
    expect(first.some((line) => line.includes('keyUnavailable#'))).toBe(true);
  });

  it('another seed gives another history', async () => {
    expect(await run(1)).not.toEqual(await run(2));
  });
});

describe('properties', () => {
  const KEYS = ['a', 'b', 'p/a', 'p/b'];
  const NODES = ['A', 'B', 'C'];

  type Op =
    | { op: 'get' | 'delete' | 'take'; key: string }
    | { op: 'set' | 'append'; key: string; value: string }
    | { op: 'compareAndSet'; key: string; expected: string | null; value: string };

  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constantFrom('get', 'delete', 'take'), key: fc.constantFrom(...KEYS) }),
    fc.record({ op: fc.constantFrom('set', 'append'), key: fc.constantFrom(...KEYS), value: fc.constantFrom('x', 'y', 'z') }),
    fc.record({
      op: fc.constant('compareAndSet'),
      key: fc.constantFrom(...KEYS),
      expected: fc.constantFrom(null, 'x', 'y'),
      value: fc.constantFrom('x', 'y'),
    }),
  ) as fc.Arbitrary<Op>;

  const scope = {
    node: fc.option(fc.constantFrom(...NODES), { nil: undefined }),
    forMs: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
  };
  const keysArb = fc.option(fc.constantFrom<string | { prefix: string }>('a', 'p/b', { prefix: 'p/' }), { nil: undefined });
  const faultArb = fc.oneof(
    fc.record({
      kind: fc.constant('keyUnavailable' as const),
      keys: fc.constantFrom<string | { prefix: string }>('a', { prefix: 'p/' }),
      stallMs: fc.constantFrom(0, 30),
      ...scope,
    }),
    fc.record({ kind: fc.constant('storeOutage' as const), stallMs: fc.constantFrom(0, 30), ...scope }),
    fc.record({
      kind: fc.constant('failures' as const),
      probability: fc.double({ min: 0, max: 1, noNaN: true }),
      after: fc.boolean(),
      keys: keysArb,
      ...scope,
    }),
    fc.record({
      kind: fc.constant('latency' as const),
      minMs: fc.integer({ min: 0, max: 50 }),
      extraMs: fc.integer({ min: 0, max: 50 }),
      mode: fc.constantFrom('delay-then-apply' as const, 'apply-then-delay' as const),
      keys: keysArb,
      ...scope,
    }),
  );
  type FaultSpec = typeof faultArb extends fc.Arbitrary<infer T> ? T : never;

  function inject(faults: FaultInjector, spec: FaultSpec): void {
    const { node, forMs } = spec;
    const scoped = { ...(node === undefined ? {} : { node }), ...(forMs === undefined ? {} : { forMs }) };
    const keys = spec.kind !== 'storeOutage' && spec.keys !== undefined ? { keys: spec.keys } : {};
    if (spec.kind === 'keyUnavailable') faults.keyUnavailable(spec.keys, { ...scoped, stallMs: spec.stallMs });
    else if (spec.kind === 'storeOutage') faults.storeOutage({ ...scoped, stallMs: spec.stallMs });
    else if (spec.kind === 'failures') faults.failures({ ...scoped, ...keys, probability: spec.probability, after: spec.after });
    else faults.latency({ ...scoped, ...keys, minMs: spec.minMs, maxMs: spec.minMs + spec.extraMs, mode: spec.mode });
  }

  /** What `op` returns and leaves behind when applied to a key holding `current`. */
  function model(op: Op, current: string | null): { result: unknown; next: string | null } {
    switch (op.op) {
      case 'get':
        return { result: current, next: current };
      case 'take':
        return { result: current, next: null };
      case 'delete':
        return { result: current !== null, next: null };
      case 'set':
        return { result: undefined, next: op.value };
      case 'append':
        return { result: Buffer.byteLength((current ?? '') + op.value), next: (current ?? '') + op.value };
      case 'compareAndSet':
        return current === op.expected
          ? { result: { swapped: true, current: op.value }, next: op.value }
          : { result: { swapped: false, current }, next: current };
    }
  }

  function issue(kv: KV, op: Op): Promise<unknown> {
    switch (op.op) {
      case 'get':
      case 'take':
      case 'delete':
        return kv[op.op](op.key);
      case 'set':
      case 'append':
        return kv[op.op](op.key, op.value);
      case 'compareAndSet':
        return kv.compareAndSet(op.key, op.expected, op.value).then(({ swapped, current }) => ({ swapped, current }));
    }
  }

  it('faults only take availability away: results are the inner store’s, and after healAll every view is the inner store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 2000 }), fault: faultArb }), { maxLength: 8 }),
        fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 200 }), node: fc.constantFrom(...NODES), op: opArb }), { maxLength: 25 }),
        fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 1000 }), node: fc.constantFrom(...NODES), op: opArb }), {
          minLength: 1,
          maxLength: 10,
        }),
        async (seed, schedule, faulty, healthy) => {
          const clock = new VirtualClock();
          const store = new MemoryKV({ clock });
          const faults = new FaultInjector({ clock, seed, logCapacity: 0 });
          const views = new Map(NODES.map((node) => [node, faults.view(store, node)]));
          for (const { at, fault } of schedule) faults.at(at, () => inject(faults, fault));

          // Under faults, one operation at a time: each either gives exactly the inner store's
          // answer, or fails with an availability error leaving the key as it was or as applied.
          for (const { gapMs, node, op } of faulty) {
            await clock.advance(gapMs);
            const before = await store.get(op.key);
            const expected = model(op, before);
            const pending = track(issue(views.get(node)!, op));
            await flush();
            for (let turns = 0; pending.state.status === 'pending'; turns++) {
              const next = clock.nextTimerAt();
              expect(next, 'a pending operation has a timer to wait for').toBeDefined();
              expect(turns).toBeLessThan(100);
              await clock.advanceTo(next!);
            }
            const after = await store.get(op.key);
            if (pending.state.status === 'ok') {
              expect(pending.state.value).toEqual(expected.result);
              expect(after).toBe(expected.next);
            } else if (pending.state.status === 'error') {
              expect(['KV_KEY_UNAVAILABLE', 'KV_STORE_UNAVAILABLE']).toContain(code(pending.state.error));
              expect([before, expected.next]).toContain(after);
            }
          }

          // Healed, now and later: every operation settles at once, as the inner store's would.
          faults.healAll();
          for (const { gapMs, node, op } of healthy) {
            await clock.advance(gapMs);
            const expected = model(op, await store.get(op.key));
            const pending = track(issue(views.get(node)!, op));
            await flush();
            expect(pending.state).toEqual({ status: 'ok', value: expected.result });
          }
        },
      ),
      { numRuns: 300, seed: Number(process.env.FC_SEED ?? 20_260_101) },
    );
  });
});
