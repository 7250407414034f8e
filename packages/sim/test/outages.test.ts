import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, leaderships, runScenario, type Run, type Scenario } from '../src/index.js';
import { storeReturn } from '../src/properties/outageRecovery.js';

const I = 100;
const T = 500;
const timing = { intervalMs: I, timeoutMs: T };

function rolesOf(run: Run, label: string): { at: number; role: string; reason: string }[] {
  return run.history.updatesOf(label).flatMap(({ at, update }) => (update.type === 'role' ? [{ at, role: update.role, reason: update.reason }] : []));
}

/**
 * Four nodes, n1 first so that it leads, the others' loops at various phases; the store out for
 * every node for `forMs` at `at`, once all have converged, and for the leader `lateMs` longer (its
 * client reconnects later, as after a PostgreSQL restart); then, for `flakyMs`, operations fail at
 * random (as a PostgreSQL just back from crash recovery answers some slower than the operation
 * timeout).
 */
function storeOut(at: number, forMs: number, lateMs: number, phase: number, flakyMs = 0): Scenario {
  return {
    seed: at,
    timing,
    steps: [
      { at: 0, do: 'start', node: 'n1' },
      { at: 2 * T + phase, do: 'start', node: 'n2' },
      { at: 2 * T + ((phase * 3) % I), do: 'start', node: 'n3' },
      { at: 2 * T + ((phase * 7) % I), do: 'start', node: 'n4' },
      { at, do: 'storeOutage', forMs, ...(flakyMs > 0 && { flakyMs }) },
      ...(lateMs > 0 ? [{ at, do: 'storeOutage' as const, forMs: forMs + lateMs, node: 'n1' }] : []),
    ],
  };
}

describe('a store back after an outage longer than T, for every node', () => {
  it('has one leader again within 2I of its return (well within T + 2I), and never two', async () => {
    // Before: a follower that missed the leader's last publication stood on PONGs it could not
    // have found during the outage, and its claim, or that of a candidate blind through the
    // outage, then waited T of stillness seen after the return: one leader 400-600 ms after it.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 6 * T, max: 6 * T + I }),
        fc.integer({ min: T + 1, max: 2 * T }),
        fc.integer({ min: 0, max: I }),
        fc.integer({ min: 0, max: I - 1 }),
        async (at, forMs, lateMs, phase) => {
          const run = await runScenario(storeOut(at, forMs, lateMs, phase));
          const outcome = storeReturn(run);
          // The situation: a pure outage run, of a converged group with one leader.
          expect(outcome).toBeDefined();
          expect(outcome!.oneLeaderAfterMs).toBeLessThanOrEqual(2 * I);
          const check = checkRun(run);
          expect(check.violations).toEqual([]);
          expect(check.measures.dualLeadershipMs).toBe(0);
        },
      ),
      { seed: 3303, numRuns: 40 },
    );
  });

  it('has one leader again soon when a nonce of the leader key answers only a little after the rest: a claim that replaced the old broadcast by compare-and-set counts the stillness from before the outage', async () => {
    // Before: the candidates' first reads after the return missed that nonce, so none found the old
    // broadcast unchanged on every nonce before its claim replaced it, and the claim waited T of
    // stillness after the return.
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + I }), fc.integer({ min: T + 1, max: 2 * T }), fc.integer({ min: 0, max: I - 1 }), async (at, forMs, phase) => {
        const late = 150;
        const scenario = storeOut(at, forMs, I, phase);
        const returnedAt = at + forMs + I;
        const run = await runScenario({ ...scenario, steps: [...scenario.steps, { at: at + forMs, do: 'keyUnavailable', keys: 'leader 3', forMs: late }] });
        const first = run.history.samples.find((s, i) => s.leaders.length === 1 && (s.at >= returnedAt || (run.history.samples[i + 1]?.at ?? Infinity) > returnedAt));
        expect(first).toBeDefined();
        expect(Math.max(0, first!.at - returnedAt)).toBeLessThanOrEqual(late + 2 * I);
        const check = checkRun(run);
        expect(check.violations).toEqual([]);
        expect(check.measures.dualLeadershipMs).toBe(0);
      }),
      { seed: 3304, numRuns: 30 },
    );
  });

  it('has one leader again within T + 2I of its return when operations fail at random for 3I after it: a candidate that stood across the outage claims on a read of every nonce, and follows the leader it sees publishing', async () => {
    // Before: candidates claimed on reads that missed nonces, or that showed the old leader back
    // and publishing (when they had stood on stillness rather than on reading nothing). A claim of
    // era + 1 deposed that leader, then waited T for it to go still; two claims of one era at two
    // nonces made the better one wait T + 2I for the other. Over T + 2I in 7 of these 40 runs
    // (704-893 ms after the return; the runs are deterministic).
    const over: string[] = [];
    for (let k = 0; k < 40; k++) {
      const at = 6 * T + ((k * 37) % I);
      const forMs = T + 1 + ((k * 211) % T);
      const run = await runScenario({ ...storeOut(at, forMs, I, (k * 13) % I, 3 * I), seed: 3306 + k });
      const outcome = storeReturn(run);
      // The situation: a converged group with one leader, the store out for every node, flaky after.
      expect(outcome).toBeDefined();
      if (outcome!.oneLeaderAfterMs === undefined || outcome!.oneLeaderAfterMs > T + 2 * I) over.push(`run ${k}: ${outcome!.oneLeaderAfterMs} ms`);
      expect(checkRun(run).measures.dualLeadershipMs).toBe(0);
    }
    expect(over).toEqual([]);
  });

  it('a listed follower whose own PINGs cannot reach the store does not stand on PONG silence: the silence is its own, not its leader\'s', async () => {
    // A store outage shorter than T, and the follower's id key unavailable until 4I after it: its
    // reads see the leader again, but no PING of its own reaches the store, so no PONG can be found.
    // Before, it stood on `pong-timeout` T + 2I after its last PONG, and its claim of the next era
    // deposed the leader; a store just back from a longer outage, failing some PINGs at random, did
    // the same to the leader about to re-validate.
    const run = await runScenario({
      seed: 3307,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 2 * T, do: 'start', node: 'n2' },
        { at: 2 * T, do: 'start', node: 'n3' },
        { at: 6 * T, do: 'storeOutage', forMs: T - 3 * I / 2 },
        { at: 6 * T, do: 'keyUnavailable', keys: 'id/n2 *', forMs: T + 4 * I },
      ],
    });
    // The situation: n2 listed by its leader when its PINGs began to fail (so PONG silence could count).
    const lists = run.history.entries.flatMap((e) => (e.kind === 'update' && e.node === 'n2' && e.update.type === 'members' && e.at < 6 * T ? [e.update.members.map((m) => m.id)] : []));
    expect(lists.at(-1)).toContain('n2');
    const stands = run.history.entries.filter((e) => e.kind === 'update' && e.node === 'n2' && e.update.type === 'role' && e.update.role === 'candidate');
    expect(stands).toEqual([]);
    expect(leaderships(run).map((l) => l.node)).toEqual(['n1']);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('never shows two leaders when a candidate that stood blind claims, after T/2, on a read still missing the leader\'s nonce: it counts only stillness seen by reads that reached the store', async () => {
    // n1 alone loses the store for 2T, then, its client routing leader 0 wrong, cannot read the
    // nonce where n2 goes on leading. Past T/2 of such reads it claims era 2 at nonce 1; counting
    // the stillness "seen" through its outage, it would confirm 100 ms later, beside n2 until n2's
    // next read. It waits T of stillness seen after its return instead, and n2 steps down first.
    const run = await runScenario({
      seed: 3308,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n2' },
        // Half an interval out of step with n2, whose reads would otherwise see the claim first.
        { at: 2 * T + I / 2, do: 'start', node: 'n1' },
        { at: 6 * T, do: 'storeOutage', forMs: 2 * T, node: 'n1' },
        { at: 6 * T, do: 'staleRouting', node: 'n1', keys: 'leader 0', forMs: 6 * T },
      ],
    });
    // The situation: n1 stood blind, and claimed at nonce 1 after T/2 of reads missing leader 0.
    expect(rolesOf(run, 'n1').some((r) => r.role === 'candidate' && r.reason === 'unreachable')).toBe(true);
    const claim = run.history.claims.find((c) => c.node === 'n1' && c.nonce === 1 && c.at >= 8 * T + T / 2);
    expect(claim).toBeDefined();
    expect(checkRun(run).measures.dualLeadershipMs).toBe(0);
  });

  it('never shows two leaders when the leader\'s nonce becomes unreadable right after the return: stillness from before the outage counts again only on the read that confirms a claim', async () => {
    // The leader re-validates at nonce 0 just after the return, then nonce 0 goes unavailable: a
    // candidate that found the old broadcast unchanged on an earlier read, and claimed at nonce 1,
    // must not count that read (it would lead beside the leader until its next cycle).
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + I }), fc.integer({ min: T + 1, max: 2 * T }), fc.integer({ min: 0, max: 2 * I }), fc.integer({ min: 0, max: I - 1 }), async (at, forMs, after, phase) => {
        const scenario = storeOut(at, forMs, 0, phase);
        const run = await runScenario({ ...scenario, steps: [...scenario.steps, { at: at + forMs + after, do: 'keyUnavailable', keys: 'leader 0', forMs: 180 }] });
        const check = checkRun(run);
        expect(check.violations).toEqual([]);
        expect(check.measures.dualLeadershipMs).toBe(0);
      }),
      { seed: 3305, numRuns: 40 },
    );
  });
});

