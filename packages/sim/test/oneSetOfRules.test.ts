import { checkHistory } from '@roster/verify';
import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, toVerifyHistory } from '../src/index.js';

// The simulator and `roster verify` check one set of rules: a simulated run, turned into the
// History a real run records, passes `@roster/verify`'s checker when the run keeps its promises.
const I = 100;
const T = 500;
const sim = { simultaneity: 'in-order', excusePauses: false } as const;

describe('one set of rules: a simulated run read as a real one', () => {
  it("a crashed leader's run, as lines, passes every rule of the checker; the crash is measured as a real kill would be", async () => {
    const crash = 3000;
    const run = await runScenario({
      seed: 3,
      timing: { intervalMs: I, timeoutMs: T },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 1000, do: 'start', node: 'n2' },
        { at: 1000, do: 'start', node: 'n3' },
        { at: crash, do: 'crash', node: 'n1' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    const history = toVerifyHistory(run);
    // The situation: n1 led when it was killed, and the lines say so.
    expect(history.faults).toEqual([{ kind: 'kill', target: 'n1', from: crash, to: run.history.end }]);
    expect(history.observations.some((o) => o.node === 'n1' && o.event.event === 'role' && o.event.role === 'leader')).toBe(true);
    const report = checkHistory(history, sim);
    expect(report.violations).toEqual([]);
    const [kill] = report.faults;
    expect(kill!.failoverMs).toBeGreaterThan(T - I);
    expect(kill!.failoverMs).toBeLessThanOrEqual(T + 2 * I);
  });

  it("a leader paused past T reports its lapse on waking: no second leader in its lines, even without the real runs' pause excuse", async () => {
    const run = await runScenario({
      seed: 1,
      timing: { intervalMs: I, timeoutMs: T },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 2 * T, do: 'start', node: 'n2' },
        { at: 2 * T, do: 'start', node: 'n3' },
        { at: 6 * T, do: 'pause', node: 'n1', forMs: 3 * T },
      ],
    });
    const history = toVerifyHistory(run);
    expect(history.faults).toEqual([{ kind: 'pause', target: 'n1', from: 6 * T, to: 9 * T }]);
    const report = checkHistory(history, sim);
    expect(report.violations).toEqual([]);
    // Another node led during the pause.
    expect(report.faults[0]!.failoverMs).toBeLessThanOrEqual(T + 2 * I);
  });
});
