import { describe, expect, it } from 'vitest';
import { checkRun, runScenario } from '../src/index.js';

describe('a LEAVE the leader could not publish in time', () => {
  it('is withdrawn when the member PINGs again over it (it restarted meanwhile): the member is not dropped once the leader publishes again (found by pnpm chaos --seed 9911)', async () => {
    const run = await runScenario({
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 515, do: 'start', node: 'n1' },
        { at: 515, do: 'start', node: 'n2' },
        { at: 7620, do: 'keyRollback', keys: 'leader *', forMs: 7500 },
        { at: 7620, do: 'stop', node: 'n2' },
        { at: 8615, do: 'start', node: 'n2' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n2 left while n1 could not publish (its lease lapsed), and its next run PINGed before n1 published again.
    const n1 = run.history.updatesOf('n1').map((u) => ({ at: u.at, ...u.update }));
    const lapse = n1.find((u) => u.type === 'role' && u.role === 'candidate' && u.reason === 'store-unavailable');
    const back = n1.find((u) => u.type === 'role' && u.role === 'leader' && u.reason === 'revalidated');
    expect(lapse?.at).toBeGreaterThan(7620);
    expect(back?.at).toBeGreaterThan(15_000);
    expect(run.history.operations.some((op) => op.node === 'n2' && op.op === 'exchange' && op.at > 8615 && op.at < back!.at)).toBe(true);
    // n1 never publishes a list without n2 after it came back.
    const removals = n1.filter((u) => u.type === 'members' && u.removed.includes('n2') && u.at > 8615);
    expect(removals).toEqual([]);
  });
});
