import { describe, it } from 'vitest';
import { chaosRuns, chaosSeed, expectChaosToPass } from './support/chaosSuite.js';

// Scenarios whose faults hit every node alike: here self-fencing is strict (no two nodes with
// isLeader() true at one instant) as long as the store keeps its writes.
describe('chaos, shared views of the store', () => {
  it('every property holds in generated scenarios', async () => {
    await expectChaosToPass({ views: 'shared', runs: chaosRuns(1000), seed: chaosSeed(20_261_122) });
  });
});
