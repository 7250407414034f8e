import { afterEach, describe, expect, it } from 'vitest';
import { MemoryKV, Namespace, type KV } from '@roster/kv-adapter';
import { MemoryLogger, VirtualClock } from '@roster/testing';
import {
  PrimaryContender,
  PrimaryLostError,
  type PrimaryContenderOptions,
  type StoppedActingEvent,
} from '../src/index.js';
import { DelayedKV, prng } from './support/DelayedKV.js';
import { acting, maxOverlap, recordTerms } from './support/terms.js';

const I = 1000;
const T = 5000;
const namespace = new Namespace('shop', 'test');

let running: PrimaryContender[] = [];
afterEach(async () => {
  await Promise.all(running.map((c) => c.stop({ release: false })));
  running = [];
});

function world() {
  const clock = new VirtualClock();
  const kv = new MemoryKV({ clock });
  let n = 0;
  const spawn = (utype: string, options: Partial<PrimaryContenderOptions> = {}): PrimaryContender => {
    const id = `${utype}-${n++}`;
    let incarnation = 0;
    const contender = new PrimaryContender({
      store: kv,
      namespace,
      utype,
      clock,
      intervalMs: I,
      timeoutMs: T,
      generateId: () => `${id}.${incarnation++}`,
      ...options,
    });
    running.push(contender);
    return contender;
  };
  return { clock, kv, spawn };
}

/** Advances in small steps, checking at every step that at most one instance acts per type. */
async function runChecked(clock: VirtualClock, contenders: PrimaryContender[], ms: number, step = 10): Promise<void> {
  const types = [...new Set(contenders.map((c) => c.utype))];
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    for (const utype of types) expect(acting(contenders, utype).length).toBeLessThanOrEqual(1);
  }
}

describe('PrimaryContender', () => {
  it('a lone contender claims an empty entry, confirms it on the next poll, and acts', async () => {
    const { clock, spawn } = world();
    const c = spawn('billing', { endpoint: '10.0.0.1:80' });
    const states: string[] = [];
    c.on('stateChanged', ({ to }) => states.push(to));
    c.start();
    await clock.advance(0);
    expect(c.state).toBe('claimed');
    await clock.advance(I - 1);
    expect(c.isActing).toBe(false);
    await clock.advance(1);
    expect(c.isActing).toBe(true);
    expect(states).toEqual(['seeking', 'claimed', 'acting']);
    expect(await c.table.getPrimary('billing')).toMatchObject({ id: c.id, endpoint: '10.0.0.1:80' });
  });

  it('on(type) delivers only events of that type, each carrying its type; a listener that throws is logged and kept', async () => {
    const { clock, spawn } = world();
    const logger = new MemoryLogger();
    const c = spawn('billing', { logger });
    const types: string[] = [];
    let throws = 0;
    c.on('stateChanged', (e) => types.push(e.type));
    c.on('startedActing', (e) => types.push(e.type));
    c.on('stateChanged', () => {
      throws++;
      throw new Error('boom');
    });
    c.start();
    await clock.advance(2 * I);
    expect(c.isActing).toBe(true);
    expect(types).toEqual(['stateChanged', 'stateChanged', 'stateChanged', 'startedActing']);
    expect(throws).toBe(3);
    expect(logger.entries.filter((e) => e.level === 'error' && e.message === 'a watch function threw')).toHaveLength(3);
  });

  it('of two contenders for one type exactly one acts', async () => {
    const { clock, spawn } = world();
    const all = [spawn('billing'), spawn('billing')];
    all.forEach((c) => c.start());
    await runChecked(clock, all, 10 * T);
    expect(acting(all, 'billing')).toHaveLength(1);
  });

  it('five contenders for each of three types: one primary per type, at every instant, and it stays', async () => {
    const { clock, spawn } = world();
    const types = ['billing', 'search', 'mail'];
    const all = types.flatMap((utype) => Array.from({ length: 5 }, () => spawn(utype)));
    const terms = recordTerms(all, clock);
    // Staggered starts, so the contenders' polls interleave.
    for (const [i, c] of all.entries()) {
      c.start();
      await clock.advance(37 * (i % 5));
    }
    await runChecked(clock, all, 6 * T);
    for (const utype of types) expect(acting(all, utype)).toHaveLength(1);
    expect(terms).toHaveLength(3); // no churn: each type got one primary, and kept it
    expect(maxOverlap(terms, clock.wallTime())).toBe(0);
  });

  it('when the primary crashes (stops without releasing), another takes over after T and not before', async () => {
    const { clock, spawn } = world();
    const all = [spawn('billing'), spawn('billing')];
    const terms = recordTerms(all, clock);
    all.forEach((c) => c.start());
    await runChecked(clock, all, 3 * I + 123);
    const primary = acting(all, 'billing')[0]!;
    const other = all.find((c) => c !== primary)!;

    const last = await primary.table.inspect('billing');
    if (last.state !== 'live') throw new Error('expected a live entry');
    await primary.stop({ release: false }); // the crash: no more heartbeats, no release

    const crashedAt = clock.wallTime();
    await clock.advanceUntil(() => other.isActing, 3 * T, 1);
    const takeover = terms.find((t) => t.id === other.id)!.start;
    expect(takeover - last.entry.timestamp).toBeGreaterThan(T);
    // The successor sees the expiry at its first poll after T (≤ I later) and confirms one poll after.
    expect(takeover - last.entry.timestamp).toBeLessThanOrEqual(T + 2 * I);
    expect(takeover - crashedAt).toBeGreaterThan(T - I);
    // The claim times are a fencing token: the successor's is more than T after the crashed one's.
    const [first, second] = terms;
    expect(second!.claimedAt - first!.claimedAt).toBeGreaterThan(T);
  });

  it('a graceful stop releases the entry: the successor takes over within 2I instead of T', async () => {
    const { clock, spawn } = world();
    const all = [spawn('billing'), spawn('billing')];
    all.forEach((c) => c.start());
    await runChecked(clock, all, 3 * I);
    const primary = acting(all, 'billing')[0]!;
    const other = all.find((c) => c !== primary)!;
    await primary.stop();
    expect(primary.state).toBe('stopped');
    const took = await clock.advanceUntil(() => other.isActing, T, 1);
    expect(took).toBeLessThanOrEqual(2 * I);
  });

  it('a primary cut off from the store stops acting T − I after its last successful round, at once', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const kv = new DelayedKV(store, clock, 0, prng(1));
    const c = new PrimaryContender({ store: kv, namespace, utype: 'billing', clock, intervalMs: I, timeoutMs: T });
    running.push(c);
    const stops: StoppedActingEvent[] = [];
    c.on('stoppedActing', (e) => stops.push(e));
    c.start();
    await clock.advance(3 * I + 500);
    expect(c.isActing).toBe(true);
    const signal = c.signal!;
    const lastRoundStart = 3 * I; // rounds run at 0, I, 2I, 3I
    kv.down = true;
    await clock.advanceTo(lastRoundStart + (T - I) - 1);
    expect(c.isActing).toBe(true);
    await clock.advance(1);
    expect(c.isActing).toBe(false);
    expect(stops).toEqual([expect.objectContaining({ reason: 'deadline' })]);
    expect(signal.aborted).toBe(true);
    expect(PrimaryLostError.is(signal.reason)).toBe(true);
    expect((signal.reason as PrimaryLostError).reason).toBe('deadline');
  });

  it('the self-stop is on the local clock: it fires even while a round hangs in the store', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const kv = new DelayedKV(store, clock, 0, prng(1));
    const c = new PrimaryContender({ store: kv, namespace, utype: 'billing', clock, intervalMs: I, timeoutMs: T });
    running.push(c);
    c.start();
    await clock.advance(3 * I + 500);
    expect(c.isActing).toBe(true);
    // From now on every operation takes 100 s to come back.
    (kv as { maxDelayMs: number }).maxDelayMs = 100_000;
    await clock.advanceTo(3 * I + (T - I));
    expect(c.isActing).toBe(false);
  });

  it('a primary that finds another instance in the entry stops at once (superseded) and starts over under a new id', async () => {
    const { clock, kv, spawn } = world();
    const c = spawn('billing');
    const stops: StoppedActingEvent[] = [];
    c.on('stoppedActing', (e) => stops.push(e));
    c.start();
    await clock.advance(2 * I);
    expect(c.isActing).toBe(true);
    const firstId = c.id;
    await kv.set(c.table.key('billing'), `{"id":"intruder","utype":"billing","timestamp":${clock.wallTime()}}`);
    await clock.advance(I);
    expect(c.isActing).toBe(false);
    expect(stops).toEqual([expect.objectContaining({ reason: 'superseded', id: firstId })]);
    expect(c.id).not.toBe(firstId);
    expect(c.state).toBe('seeking');
    // The intruder never heartbeats again: the new incarnation takes over after T.
    await clock.advance(T + 2 * I);
    expect(c.isActing).toBe(true);
  });

  it('a primary whose entry vanishes stops at once (vanished)', async () => {
    const { clock, kv, spawn } = world();
    const c = spawn('billing');
    const stops: StoppedActingEvent[] = [];
    c.on('stoppedActing', (e) => stops.push(e));
    c.start();
    await clock.advance(2 * I);
    await kv.delete(c.table.key('billing'));
    await clock.advance(I);
    expect(stops).toEqual([expect.objectContaining({ reason: 'vanished' })]);
  });

  it('corrupt entries never crash the loop: reported, taken over as empty, and a primary whose entry is corrupted steps down', async () => {
    const { clock, kv, spawn } = world();
    const logger = new MemoryLogger();
    const key = `${namespace.prefix}primary/billing`;
    await kv.set(key, '{"id": 12, "utype": [], "timestamp": "soon"');
    const all = [spawn('billing', { logger }), spawn('billing', { logger })];
    const reports: string[] = [];
    for (const c of all) c.on('corruptEntry', (r) => reports.push(r.reason));
    const terms = recordTerms(all, clock);
    all.forEach((c) => c.start());
    await runChecked(clock, all, 3 * I);
    expect(acting(all, 'billing')).toHaveLength(1);
    expect(reports.length).toBeGreaterThan(0);
    expect(logger.entries.some((e) => e.level === 'warn' && /corrupt/.test(e.message ?? ''))).toBe(true);

    await kv.set(key, 'x'.repeat(50_000));
    await runChecked(clock, all, 3 * T);
    expect(terms[0]!.reason).toBe('vanished');
    expect(acting(all, 'billing')).toHaveLength(1);
    expect(maxOverlap(terms, clock.wallTime())).toBe(0);
  });

  it('a failing store is reported as failed rounds, never as an exception or an unhandled rejection', async () => {
    const clock = new VirtualClock();
    const kv = new DelayedKV(new MemoryKV({ clock }), clock, 0, prng(2));
    kv.down = true;
    const c = new PrimaryContender({ store: kv, namespace, utype: 'billing', clock, intervalMs: I, timeoutMs: T });
    running.push(c);
    let failures = 0;
    c.on('roundFailed', () => failures++);
    c.start();
    await clock.advance(10 * I);
    expect(failures).toBeGreaterThanOrEqual(10);
    kv.down = false;
    await clock.advance(2 * I);
    expect(c.isActing).toBe(true);
  });

  it('listeners that throw do not disturb the loop', async () => {
    const { clock, spawn } = world();
    const logger = new MemoryLogger();
    const c = spawn('billing', {
      logger,
      onStartedActing: () => {
        throw new Error('listener bug');
      },
    });
    c.start();
    await clock.advance(5 * I);
    expect(c.isActing).toBe(true);
    expect(logger.entries.some((e) => e.level === 'error')).toBe(true);
  });

  it('exitOnLoss calls exit(1) right after onStoppedActing; by default the library never exits', async () => {
    const { clock, kv, spawn } = world();
    const calls: string[] = [];
    const c = spawn('billing', {
      exitOnLoss: true,
      exit: (code) => calls.push(`exit ${code}`),
      onStoppedActing: ({ reason }) => calls.push(`stopped ${reason}`),
    });
    c.start();
    await clock.advance(2 * I);
    await kv.set(c.table.key('billing'), `{"id":"other","utype":"billing","timestamp":${clock.wallTime()}}`);
    await clock.advance(I);
    expect(calls).toEqual(['stopped superseded', 'exit 1']);
    expect(c.state).toBe('stopped');

    const quiet = spawn('search', { exit: () => calls.push('unexpected exit') });
    quiet.start();
    await clock.advance(2 * I);
    await kv.delete(quiet.table.key('search'));
    await clock.advance(I);
    expect(calls).not.toContain('unexpected exit');
  });

  it('stop() is graceful and idempotent: the signal aborts with reason `stopped` and stoppedActing fires once', async () => {
    const { clock, spawn } = world();
    const c = spawn('billing');
    const stops: StoppedActingEvent[] = [];
    c.on('stoppedActing', (e) => stops.push(e));
    c.start();
    await clock.advance(2 * I);
    const signal = c.signal!;
    const first = c.stop();
    expect(signal.aborted).toBe(true); // at once, before any await
    expect(c.stop()).toBe(first);
    await first;
    expect(stops).toEqual([expect.objectContaining({ reason: 'stopped', actedForMs: I })]);
    expect(await c.table.getPrimary('billing')).toBeUndefined(); // released
    c.start(); // no restart after stop
    await clock.advance(3 * I);
    expect(c.state).toBe('stopped');
    expect(clock.pendingTimers).toBe(0);
  });

  it('aborting the options signal stops it; `await using` disposes it', async () => {
    const { clock, kv, spawn } = world();
    const controller = new AbortController();
    const c = spawn('billing', { signal: controller.signal });
    c.start();
    await clock.advance(2 * I);
    expect(c.isActing).toBe(true);
    controller.abort();
    await clock.advance(0);
    expect(c.state).toBe('stopped');

    {
      await using d = new PrimaryContender({ store: kv, namespace, utype: 'search', clock, intervalMs: I, timeoutMs: T });
      d.start();
      await clock.advance(2 * I);
      expect(d.isActing).toBe(true);
    }
    expect(await new PrimaryContender({ store: kv, namespace, utype: 'search', clock }).table.getPrimary('search')).toBeUndefined();
  });

  it('reports the primary it observes, including the endpoint, once per change', async () => {
    const { clock, spawn } = world();
    const a = spawn('billing', { endpoint: 'a:1' });
    const b = spawn('billing', { endpoint: 'b:1' });
    const seen: (string | undefined)[] = [];
    b.on('primaryObserved', ({ primary }) => seen.push(primary?.endpoint));
    a.start();
    await clock.advance(0);
    b.start();
    await clock.advance(5 * I);
    expect(seen).toEqual(['a:1']);
  });

  it('works over a store with random operation delays', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const random = prng(7);
    const all = Array.from({ length: 3 }, (_, i) => {
      const kv: KV = new DelayedKV(store, clock, 300, random);
      const c = new PrimaryContender({ store: kv, namespace, utype: 'billing', clock, intervalMs: I, timeoutMs: T, generateId: () => `n${i}.${Math.floor(random() * 1e9)}` });
      running.push(c);
      return c;
    });
    const terms = recordTerms(all, clock);
    all.forEach((c) => c.start());
    await runChecked(clock, all, 6 * T);
    expect(acting(all, 'billing')).toHaveLength(1);
    expect(maxOverlap(terms, clock.wallTime())).toBe(0);
  });
});

describe('PrimaryContender re-entrancy', () => {
  it('a stoppedActing listener may call stop(): the contender stops, releases, and does not start over', async () => {
    const clock = new VirtualClock();
    const kv = new MemoryKV({ clock });
    const c = new PrimaryContender({ store: kv, namespace, utype: 'billing', clock, intervalMs: I, timeoutMs: T });
    const states: string[] = [];
    c.on('stateChanged', ({ to }) => states.push(to));
    c.on('stoppedActing', () => void c.stop());
    c.start();
    await clock.advance(2 * I);
    const id = c.id;
    await kv.delete(c.table.key('billing'));
    await clock.advance(I);
    expect(c.state).toBe('stopped');
    expect(c.id).toBe(id);
    expect(states).toEqual(['seeking', 'claimed', 'acting', 'stopped']);
    expect(clock.pendingTimers).toBe(0);
  });
});
