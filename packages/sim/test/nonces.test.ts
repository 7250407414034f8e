import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Scenario } from '../src/index.js';

// What the nonce decides: between two leaderships of one era, the lower nonce is the better one
// (and has the higher fencing token); a LEAVE counts only at the nonce where the member PINGs.
// Random scenarios rarely line these steps up, so the runs are written by hand.
describe('what the nonce decides', () => {
  it('of two leaders of era 2, the one at nonce 0 wins, and the tokens each node follows rise', async () => {
    // n1 leads era 1 and crashes; n2 is elected at era 2, nonce 0. n3 was paused meanwhile and,
    // when it resumes, can read neither nonce 0 of the leader key nor of the era key, and n2
    // cannot PONG it (else n3, hearing a live leader, would not stand): it knows of era 1 only,
    // claims era 2 at nonce 1 and leads there in its own partial view. Once n2 and the observer
    // n4 see n3's leadership, they must keep to n2's (era 2, nonce 0).
    const scenario: Scenario = {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n2' },
        { at: 0, do: 'start', node: 'n3' },
        { at: 0, do: 'start', node: 'n4', observer: true },
        { at: 9_000, do: 'pause', node: 'n3', forMs: 8_000 },
        { at: 10_000, do: 'crash', node: 'n1' },
        { at: 16_000, do: 'keyUnavailable', keys: 'leader 0', node: 'n3', forMs: 14_000 },
        { at: 16_000, do: 'keyUnavailable', keys: 'era 0', node: 'n3', forMs: 14_000 },
        { at: 16_000, do: 'keyUnavailable', keys: 'id/n3 *', node: 'n2', forMs: 14_000 },
      ],
    };
    const run = await runScenario(scenario);
    // With the nonce order flipped, n2 and n4 move on to n3's era 2 at nonce 1, whose token is
    // lower: monotonic rejects it.
    expect(checkRun(run).violations).toEqual([]);
    const leaderships = (node: string) =>
      run.history.updatesOf(node).flatMap(({ update: u }) => (u.type === 'leader' && u.leader ? [`${u.leader.id} ${u.leader.era}/${u.leader.nonce}`] : []));
    // The tie did happen: both leaderships of era 2 existed.
    expect(leaderships('n3')).toEqual(['n1 1/0', 'n3 2/1', 'n2 2/0']);
    expect(leaderships('n2')).toEqual(['n1 1/0', 'n2 2/0']);
    expect(leaderships('n4')).toEqual(['n1 1/0', 'n2 2/0']);
  });

  it('a LEAVE that lands late at another nonce than the one where the member PINGs does not remove it', async () => {
    // n1 PINGs at nonce 1 of its id key (nonce 0 was unavailable when it started). It stops, and
    // its LEAVE at nonce 1 is delayed 9 s in flight; its new run PINGs at nonce 0, where the
    // leader's PONG worker finds it. When the old LEAVE lands at nonce 1 it is news there, but
    // not where the member PINGs: the new run stays listed.
    const scenario: Scenario = {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n2' },
        { at: 1000, do: 'keyUnavailable', keys: 'id/n1 0', forMs: 5 },
        { at: 1000, do: 'start', node: 'n1' },
        { at: 19_500, do: 'latency', keys: 'id/n1 1', node: 'n1', minMs: 9000, maxMs: 9000, forMs: 1000 },
        { at: 20_000, do: 'stop', node: 'n1' },
        { at: 20_600, do: 'start', node: 'n1' },
      ],
    };
    const run = await runScenario(scenario);
    // The old run's LEAVE did land, late, at nonce 1 (values are recorded quoted).
    // (The stop gave up waiting for it after the operation timeout and wrote another LEAVE at
    // nonce 2, where nobody listens either.)
    const leave = run.history.operations.find((op) => op.op === 'set' && op.value === '"LEAVE"' && op.key === `${run.prefix}id/n1 1`);
    expect(leave).toMatchObject({ node: 'n1', outcome: 'ok', at: 20_000, doneAt: 29_000 });
    const dropped = run.history.updatesOf('n2').filter(({ at, update }) => at > 20_600 && update.type === 'members' && update.removed.includes('n1'));
    expect(dropped).toEqual([]);
    expect(checkRun(run).violations).toEqual([]);
  });
});
