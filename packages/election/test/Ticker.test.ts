import { sleep } from '@roster/kv-adapter/internal';
import { MemoryLogger, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { Ticker } from '../src/Ticker.js';

/** A ticker whose step records its start time and then takes `takesMs` of virtual time. */
function setup(options: { periodMs?: number; takesMs?: (run: number) => number; throwOn?: number; pokeFirstOn?: number } = {}) {
  const clock = new VirtualClock();
  const logger = new MemoryLogger();
  const starts: number[] = [];
  const ends: number[] = [];
  let active = 0;
  let maxActive = 0;
  const ticker: Ticker = new Ticker({
    clock,
    logger,
    name: 'test-loop',
    periodMs: options.periodMs ?? 1000,
    step: async () => {
      const run = starts.length;
      // Before anything is awaited, as a leader step does when it finds its lease lapsed.
      if (run === options.pokeFirstOn) ticker.poke();
      starts.push(clock.now());
      active++;
      maxActive = Math.max(maxActive, active);
      try {
        const takes = options.takesMs?.(run) ?? 0;
        if (takes > 0) await sleep(clock, takes);
        if (run === options.throwOn) throw new Error('step failed');
      } finally {
        active--;
        ends.push(clock.now());
      }
    },
  });
  /** Stops the ticker, letting virtual time run until the step in progress has finished. */
  const finish = async (): Promise<void> => {
    const stopped = ticker.stop();
    await clock.advance(10_000);
    await stopped;
  };
  return { clock, logger, ticker, starts, ends, finish, maxActive: () => maxActive };
}

describe('Ticker', () => {
  it('runs the first step at once, then one every period at a fixed rate', async () => {
    const { clock, ticker, finish, starts } = setup({ takesMs: () => 300 });
    ticker.start();
    await clock.advance(3500);
    expect(starts).toEqual([0, 1000, 2000, 3000]);
    await finish();
  });

  it('start(delay) runs the first step after the delay; a second start does nothing', async () => {
    const { clock, ticker, finish, starts } = setup();
    ticker.start(400);
    ticker.start();
    await clock.advance(399);
    expect(starts).toEqual([]);
    await clock.advance(2001);
    expect(starts).toEqual([400, 1400, 2400]);
    await finish();
  });

  it('a step that overruns its period is followed at once by the next; steps never overlap', async () => {
    const { clock, ticker, finish, starts, ends, maxActive } = setup({ takesMs: (run) => (run === 1 ? 2500 : 100) });
    ticker.start();
    await clock.advance(5000);
    expect(starts.slice(0, 4)).toEqual([0, 1000, 3500, 4500]);
    expect(ends[1]).toBe(3500);
    expect(maxActive()).toBe(1);
    await finish();
  });

  it('a step that throws is logged with the loop name and the ticker goes on', async () => {
    const { clock, ticker, finish, starts, logger } = setup({ throwOn: 1 });
    ticker.start();
    await clock.advance(2500);
    expect(starts).toEqual([0, 1000, 2000]);
    const errors = logger.entries.filter((e) => e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ loop: 'test-loop' });
    await finish();
  });

  it('poke runs the next step right away instead of waiting for its turn', async () => {
    const { clock, ticker, finish, starts } = setup();
    ticker.start();
    await clock.advance(300);
    ticker.poke();
    await clock.advance(0);
    expect(starts).toEqual([0, 300]);
    await clock.advance(1000);
    expect(starts).toEqual([0, 300, 1300]);
    await finish();
  });

  it('a poke during a step runs the next step right after it, never alongside', async () => {
    const { clock, ticker, finish, starts, maxActive } = setup({ takesMs: () => 200 });
    ticker.start();
    await clock.advance(100);
    ticker.poke();
    await clock.advance(150);
    expect(starts).toEqual([0, 200]);
    expect(maxActive()).toBe(1);
    await finish();
  });

  it('a poke from a step before its first await runs the next step after it, never alongside, and leaves one chain of steps', async () => {
    const { clock, ticker, finish, starts, maxActive } = setup({ takesMs: () => 200, pokeFirstOn: 1 });
    ticker.start();
    await clock.advance(2500);
    expect(maxActive()).toBe(1);
    // The poke made at 1000 runs a step right after that one (1200); then one per period again.
    expect(starts).toEqual([0, 1000, 1200, 2200]);
    await finish();
  });

  it('stop resolves once the running step has finished, and no step runs after it; stop is idempotent', async () => {
    const { clock, ticker, starts, ends } = setup({ takesMs: () => 500 });
    ticker.start();
    await clock.advance(100);
    let stopped = false;
    const stopping = ticker.stop().then(() => (stopped = true));
    await clock.advance(399);
    expect(stopped).toBe(false);
    await clock.advance(1);
    await stopping;
    expect(ends).toEqual([500]);
    await ticker.stop();
    ticker.poke();
    ticker.start();
    await clock.advance(10_000);
    expect(starts).toEqual([0]);
    expect(clock.pendingTimers).toBe(0);
  });
});
