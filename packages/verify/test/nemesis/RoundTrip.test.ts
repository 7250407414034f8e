import { describe, expect, it } from 'vitest';
import { adviseTiming, summarize } from '../../src/nemesis/RoundTrip.js';

describe('the round trip and the timing advised', () => {
  it('summarizes p50, p99 and max by nearest rank', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(summarize(samples)).toEqual({ samples: 100, failures: 0, p50Ms: 50, p99Ms: 99, maxMs: 100 });
  });

  it('advises the 100 ms floor for a local store, with T = 5I and R = T/2', () => {
    const advice = adviseTiming(summarize([0.3, 0.5, 1.2]));
    expect([advice.intervalMs, advice.timeoutMs, advice.renewDeadlineMs]).toEqual([100, 500, 250]);
  });

  it('keeps the operation deadline I/2 at twice the p99 or more, rounded up to 50 ms', () => {
    const advice = adviseTiming({ samples: 100, failures: 0, p50Ms: 20, p99Ms: 60, maxMs: 70 });
    expect(advice.intervalMs).toBe(250);
    expect(advice.reasons[0]).toContain('4 × p99');
  });

  it('keeps I/2 at 1.5 × the slowest round trip when one read was far slower', () => {
    const advice = adviseTiming({ samples: 100, failures: 0, p50Ms: 5, p99Ms: 10, maxMs: 200 });
    expect(advice.intervalMs).toBe(600);
    expect(advice.reasons[0]).toContain('slowest');
  });

  it('falls back to the library defaults without a sample', () => {
    expect(adviseTiming(summarize([], 3)).intervalMs).toBe(1000);
  });
});
