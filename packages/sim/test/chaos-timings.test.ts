import { describe, it } from 'vitest';
import { chaosRuns, chaosSeed, expectChaosToPass } from './support/chaosSuite.js';

// The same properties under other timings than the default I = 1 s, T = 5 s, down to the edge of
// the rule T > 2I (T = 2.5I, where the renew deadline T/2 is only 1.25I).
describe('chaos, other timings', () => {
  it('every property holds in generated scenarios with I/T from 100/250 to 1000/5000', async () => {
    await expectChaosToPass({
      views: 'mixed',
      runs: chaosRuns(400),
      seed: chaosSeed(20_261_124),
      timings: [
        { intervalMs: 1000, timeoutMs: 2500 },
        { intervalMs: 500, timeoutMs: 1200 },
        { intervalMs: 200, timeoutMs: 1000 },
        { intervalMs: 100, timeoutMs: 250 },
      ],
    });
  });
});
