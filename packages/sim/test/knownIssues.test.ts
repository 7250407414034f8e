import { describe, expect, it } from 'vitest';
import { KNOWN_ISSUES } from '../src/chaos/knownIssues.js';
import { checkRun, formatScenario, runScenario } from '../src/index.js';

// Bugs the simulator found that are still open. Each counterexample fails its property today
// (`it.fails`); when a fix lands, its test fails: remove the issue from KNOWN_ISSUES so that chaos
// runs stop skipping the scenarios it covers.
describe('known issues, still open', () => {
  it('the list names each issue once', () => {
    expect(new Set(KNOWN_ISSUES.map((i) => i.id)).size).toBe(KNOWN_ISSUES.length);
  });
  for (const issue of KNOWN_ISSUES) {
    it.fails(`${issue.id}: ${issue.title}`, async () => {
      expect(issue.covers(issue.counterexample)).toBe(true);
      const run = await runScenario(issue.counterexample);
      const violations = checkRun(run, [issue.property]).violations;
      expect(violations, `${formatScenario(issue.counterexample)}\n${violations.map((v) => v.message).join('\n')}`).toEqual([]);
    });
  }
});
