import { describe, it } from 'vitest';
import { chaosRuns, chaosSeed, expectChaosToPass } from './support/chaosSuite.js';

// Scenarios with faults limited to one node's view, random failures and latency: every property
// holds except strict self-fencing, which is measured instead (dual-leadership time).
describe('chaos, per-node views of the store', () => {
  it('every property holds in generated scenarios', async () => {
    await expectChaosToPass({ views: 'per-node', runs: chaosRuns(1000), seed: chaosSeed(20_261_123) });
  });
});
