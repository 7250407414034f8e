import type { KV } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { Cluster, I, T } from './support/harness.js';

/**
 * `kv` with a stray client that writes fresh garbage at a leader key just before each
 * compare-and-set there (one ms of virtual time later), so that every claim loses its race, even
 * the second compare against the exact value the first one found.
 */
function racedByAStrayWriter(kv: KV, clock: Cluster['clock'], on: () => boolean = () => true): KV {
  let n = 0;
  return new Proxy(kv, {
    get(target, prop, receiver) {
      if (prop !== 'compareAndSet') {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return async (key: string, expected: string | null, value: string, options?: object) => {
        if (key.includes('/leader ') && on()) {
          await target.set(key, `GARBAGE ${++n}`);
          await new Promise<void>((resolve) => clock.setTimer(resolve, 1));
        }
        return target.compareAndSet(key, expected, value, options);
      };
    },
  });
}

describe('a node whose claims keep losing their race', () => {
  it('stands at most once per interval, and logs a few lines, not one per try', async () => {
    const c = new Cluster();
    const a = c.add('a', { store: racedByAStrayWriter(c.store.view('a'), c.clock) });
    await c.start('a');
    await c.clock.advance(T + 10 * I);
    // The situation: it stood, and its claims lost their race every time.
    expect(a.stats['claim.race-lost']).toBeGreaterThan(1);
    expect(a.isLeader()).toBe(false);
    // At most one candidacy per interval from its first stand on (T), whatever ended the last one.
    expect(a.stats.candidacy).toBeLessThanOrEqual(11);
    expect(c.logs.get('a')!.entries.filter((l) => l.level !== 'debug').length).toBeLessThanOrEqual(2 * 11 + 5);
    a.destroy();
  });
});

describe('a leader whose publications keep meeting another write', () => {
  it('reads again at once after the first conflict only, then once per interval: it does not spin at the store’s speed', async () => {
    const c = new Cluster();
    let stray = false;
    const a = c.add('a', { store: racedByAStrayWriter(c.store.view('a'), c.clock, () => stray) });
    await c.start('a');
    await c.until(() => a.isLeader(), 4 * T, 'a leads');
    const before = a.stats['publish.conflict'] ?? 0;
    stray = true;
    await c.clock.advance(10 * I);
    // The situation: its publications (and beats) met the stray writes.
    const conflicts = (a.stats['publish.conflict'] ?? 0) - before;
    expect(conflicts).toBeGreaterThan(2);
    // A cycle and its one immediate retry, and a beat, per interval at most.
    expect(conflicts).toBeLessThanOrEqual(3 * 11);
    a.destroy();
  });
});
