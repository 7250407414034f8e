import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/sim', () => {
  it('exports exactly the scenario language, the runner, the properties, chaos and the mutations', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'ACTION_KINDS',
      'DRAWN_KINDS',
      'History',
      'MUTATIONS',
      'PROPERTIES',
      'PauseGate',
      'chaosArbitrary',
      'checkRun',
      'checkScenario',
      'convergenceBound',
      'convergenceTime',
      'costPerMember',
      'dualLeadershipTime',
      'formatFailure',
      'formatHistory',
      'formatScenario',
      'garbageValue',
      'isGarbage',
      'leaderships',
      'losesData',
      'mutationByName',
      'preemption',
      'quietAt',
      'rollingRun',
      'rollingScenarioArbitrary',
      'runChaos',
      'runLength',
      'runScenario',
      'scenarioArbitrary',
      'toVerifyHistory',
      'tokenInversions',
      'viewsOf',
    ]);
  });
});
