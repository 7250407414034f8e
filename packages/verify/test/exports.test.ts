import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/verify', () => {
  it('exports the checker: checkHistory, each rule by name, the fault outcomes and the formatter', async () => {
    const names = Object.keys(await import('../src/index.js'));
    expect(names).toEqual(
      expect.arrayContaining([
        'BASE_COMMANDS',
        'COMMANDS_PER_MEMBER',
        'INCONCLUSIVE_REASON',
        'InvalidHistoryError',
        'RULES',
        'RULE_NAMES',
        'checkHistory',
        'commandsPerInterval',
        'failover',
        'faultOutcomes',
        'fencedWrite',
        'formatObservation',
        'formatViolation',
        'leaderOverlaps',
        'leaderReports',
        'leaderships',
        'operationBudget',
        'quietAt',
        'recovery',
        'resolveCheckOptions',
        'ruleByName',
        'tokenInversions',
        'tokenOrder',
        'twoLeaders',
        'validateHistory',
      ]),
    );
  });

  it('each rule is exported under its name, and RULES holds them in RULE_NAMES order', async () => {
    const m = await import('../src/index.js');
    expect(m.RULES.map((r) => r.name)).toEqual(m.RULE_NAMES);
    expect([m.twoLeaders, m.tokenOrder, m.fencedWrite, m.failover, m.recovery, m.operationBudget]).toEqual(m.RULES);
  });
});
