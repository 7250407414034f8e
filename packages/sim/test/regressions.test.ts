import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type PropertyName, type Run, type Scenario } from '../src/index.js';

const timing = { intervalMs: 1000, timeoutMs: 5000 };

/** The role updates of incarnation `label`, with their times. */
function rolesOf(run: Run, label: string): { at: number; role: string; reason: string }[] {
  return run.history.updatesOf(label).flatMap(({ at, update }) => (update.type === 'role' ? [{ at, role: update.role, reason: update.reason }] : []));
}

// Counterexamples the simulator found in @roster/election, kept once fixed.
describe('regressions found by the simulator', () => {
  it('a leader paused past its lease does not re-validate it on resume while the better leader’s key is unavailable', async () => {
    // n1 leads and is paused for longer than T; n2 is elected. When n1 resumes, its held main tick
    // ran before its held fence timer; its re-read missed n2 (leader 0 unavailable for 5 ms), it
    // published at nonce 1 and renewed its lease: two leaders for 1 s with a shared view.
    const scenario: Scenario = {
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n2' },
        { at: 10_685, do: 'pause', node: 'n1', forMs: 15_820 },
        { at: 26_505, do: 'keyUnavailable', keys: 'leader 0', forMs: 5 },
      ],
    };
    const run = await runScenario(scenario);
    expect(checkRun(run).violations).toEqual([]);
    // n1 re-validates its lapsed lease only on a read that saw every nonce: it finds n2 and steps down.
    const roles = run.history.updatesOf('n1').flatMap((u) => (u.update.type === 'role' ? [u.update] : []));
    // (Shown as `candidate` from its lease deadline on: the lapse, then the step down.)
    expect(roles.slice(-2)).toEqual([
      { type: 'role', role: 'candidate', previous: 'leader', reason: 'lease-expired' },
      { type: 'role', role: 'follower', previous: 'candidate', reason: 'dethroned' },
    ]);
  });

  it('two leaders never both hold a lease after a long unavailable leader key and a store outage (found by the 100,000-scenario run)', async () => {
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n2' },
        { at: 0, do: 'keyUnavailable', keys: 'id/n1 *', forMs: 11_505 },
        { at: 475, do: 'start', node: 'n3' },
        { at: 7060, do: 'start', node: 'n1' },
        { at: 13_480, do: 'keyUnavailable', keys: 'leader 0', forMs: 11_525 },
        { at: 13_875, do: 'storeOutage', forMs: 10_605 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });

  it('a publication whose reply was lost does not make Version go back: followers see the next list change (list epochs)', async () => {
    // n2's compare-and-set landed but its reply was lost (failures after apply); its next
    // publication went on from its own older Version, inside the list epoch the followers had
    // fetched, so the list change that followed (n4 back) never reached them: not converged.
    const run = await runScenario({
      seed: 1474156389,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n3', observer: true },
        { at: 0, do: 'start', node: 'n4' },
        { at: 10, do: 'start', node: 'n1' },
        { at: 3510, do: 'start', node: 'n2' },
        { at: 5505, do: 'failures', probability: 0.2, forMs: 5510, after: true, ops: ['compareAndSet'] },
        { at: 5510, do: 'restart', node: 'n4' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });

  it('a lapsed leader whose re-reads miss a nonce keeps publishing once per interval, without spinning, and re-validates when the nonce is back', async () => {
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 5505, do: 'keyUnavailable', keys: 'leader 0', forMs: 2500 },
        { at: 5505, do: 'pause', node: 'n1', forMs: 2495 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });

  it('a follower that saw a claim before its first publication does not dethrone the new leader on a PONG timeout (convergence within the bound)', async () => {
    for (const steps of [
      [
        { at: 0, do: 'start', node: 'n2' },
        { at: 0, do: 'start', node: 'n3' },
        { at: 30, do: 'start', node: 'n1' },
        { at: 6505, do: 'crash', node: 'n2' },
      ],
      [
        { at: 2055, do: 'start', node: 'n3' },
        { at: 2060, do: 'start', node: 'n2' },
        { at: 6560, do: 'start', node: 'n1' },
        { at: 8065, do: 'crash', node: 'n2' },
        { at: 8500, do: 'start', node: 'n4' },
        { at: 9565, do: 'storeOutage', forMs: 7000, stallMs: 1 },
      ],
    ] as Scenario['steps'][]) {
      const run = await runScenario({ seed: 0, timing, steps });
      expect(checkRun(run).violations).toEqual([]);
    }
  });

  it('an observer whose leadership went still does not move on to a worse one on a read that could not read every nonce (observer-moves-on-partial-read)', async () => {
    // n1 led era 1 at nonce 0 and died while nonce 0 was unavailable; n2 leads era 2 at nonce 1.
    // Then the observer n3 cannot read nonce 1 for 15 s while nonce 0, back, shows era 1: era 2
    // looks still to it, and era 1 is what it can read. Moving on there would go back an era.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n2' },
        { at: 0, do: 'start', node: 'n3', observer: true },
        { at: 10_000, do: 'keyUnavailable', keys: 'leader 0', forMs: 20_000 },
        { at: 10_000, do: 'crash', node: 'n1' },
        { at: 25_000, do: 'keyUnavailable', keys: 'leader 1', node: 'n3', forMs: 15_000 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n3 followed era 2 at nonce 1; after 30 s it read era 1 at nonce 0 while nonce 1
    // failed for it, for longer than T.
    const followed = run.history.updatesOf('n3').flatMap((u) => (u.update.type === 'leader' && u.update.leader ? [u.update.leader] : []));
    expect(followed.map((l) => `${l.id} e${l.era}/n${l.nonce}`)).toEqual(['n1 e1/n0', 'n2 e2/n1']);
    const reads = run.history.operations.filter((op) => op.node === 'n3' && op.at > 30_000 && op.at < 40_000 && op.key?.endsWith('/leader 0') === true);
    expect(reads.some((op) => op.outcome === 'ok' && /"1 0 /.test(op.result ?? ''))).toBe(true);
    expect(run.history.operations.some((op) => op.node === 'n3' && op.at > 35_000 && op.key?.endsWith('/leader 1') === true && op.code === 'KV_KEY_UNAVAILABLE')).toBe(true);
  });

  it('fixed issues stay fixed: observer after data loss (a worse leadership, the same one from Version 0), a stale LEAVE, an era hidden by an unavailable leader key', async () => {
    for (const [property, steps] of [
      // An observer remembered a better leadership that the store no longer had.
      [
        'convergence',
        [
          { at: 0, do: 'start', node: 'n1', observer: true },
          { at: 0, do: 'start', node: 'n2' },
          { at: 5005, do: 'stop', node: 'n2' },
          { at: 6005, do: 'flush' },
          { at: 6295, do: 'start', node: 'n3' },
        ],
      ],
      // After a flush and a restart, the restarted leader led again at the same era and nonce from
      // Version 0; an observer ignored it until its Version passed the one it remembered.
      [
        'convergence',
        [
          { at: 0, do: 'start', node: 'n2' },
          { at: 0, do: 'start', node: 'n3', observer: true },
          { at: 15, do: 'start', node: 'n1' },
          { at: 22_020, do: 'crash', node: 'n1' },
          { at: 28_505, do: 'restart', node: 'n2' },
          { at: 28_505, do: 'flush' },
        ],
      ],
      // A LEAVE left at nonce 1 of n1's id key by its previous run removed the new run again and again.
      [
        'no-member-lost',
        [
          { at: 0, do: 'start', node: 'n1' },
          { at: 0, do: 'start', node: 'n2' },
          { at: 0, do: 'keyUnavailable', keys: 'id/n1 0', forMs: 5 },
          { at: 5, do: 'stop', node: 'n1' },
          { at: 5, do: 'restart', node: 'n1' },
        ],
      ],
      // The restarted n1 could not read the era at 'leader 0' and led with a lower fencing token.
      [
        'monotonic',
        [
          { at: 4980, do: 'start', node: 'n1' },
          { at: 10_485, do: 'keyUnavailable', keys: 'leader 0', forMs: 5505 },
          { at: 10_485, do: 'restart', node: 'n1' },
        ],
      ],
    ] as [PropertyName, Scenario['steps']][]) {
      const run = await runScenario({ seed: 0, timing, steps });
      expect(checkRun(run, [property]).violations).toEqual([]);
    }
  });

  it('fixed issues stay fixed: a node resumed from a long pause, leftover PINGs of a dead member', async () => {
    for (const [property, steps] of [
      // n1, paused past T, resumed while 'leader 0' was unavailable: its first read missed n2, and
      // the stillness measured from before the pause let it confirm a claim while n2 still led.
      [
        'self-fencing',
        [
          { at: 0, do: 'start', node: 'n2' },
          { at: 100, do: 'start', node: 'n1' },
          { at: 6000, do: 'pause', node: 'n1', forMs: 9800 },
          { at: 15_800, do: 'keyUnavailable', keys: 'leader 0', forMs: 600 },
        ],
      ],
      // n1's id key moved while it lived; after its crash the leader took a leftover PING at
      // another nonce for a fresh one and kept n1 listed past T + 2I.
      [
        'convergence',
        [
          { at: 3165, do: 'start', node: 'n2' },
          { at: 4920, do: 'start', node: 'n1' },
          { at: 15_925, do: 'keyUnavailable', keys: 'id/n1 *', forMs: 4745, stallMs: 188 },
          { at: 20_925, do: 'crash', node: 'n1' },
        ],
      ],
    ] as [PropertyName, Scenario['steps']][]) {
      const run = await runScenario({ seed: 0, timing, steps });
      expect(checkRun(run, [property]).violations).toEqual([]);
    }
  });

  it('an observer that moves on to a lower era after the store lost its data breaks no property', async () => {
    // Found by 20,000 generated scenarios (seed 2026) once observers move on after data loss:
    // the era drop is the store's forgetting, excused as token drops across data loss are.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n2', observer: true },
        { at: 0, do: 'start', node: 'n3' },
        { at: 515, do: 'start', node: 'n1' },
        { at: 5005, do: 'pause', node: 'n3', forMs: 8995 },
        { at: 14_020, do: 'flush' },
        { at: 14_020, do: 'restart', node: 'n1' },
        { at: 14_970, do: 'storeOutage', forMs: 9035 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });

  it('a candidate does not confirm on a read that missed, for a store failure, the nonce of a better claim of its era (confirm-on-partial-read)', async () => {
    // Found by a 30,000-scenario run (seed 7): every leader nonce hung for 5.5 s, then came back
    // with its old data and failed at random (clients reconnecting). n2 claimed era 2 at nonce 2,
    // n3, whose reads of nonces 0 to 2 had failed, era 2 at nonce 3; n3 confirmed 5 ms after n2 on
    // a read that missed nonce 2 again: token 3068 after 3069. An unreadable nonce is not absent.
    // The fault injector's draws moved when leaders began to read their window by headers: the
    // same scenario shows the bug at seed 55675490 on that code; both seeds are kept.
    // Found when the settle time defaulted to I/2 (now I/10), which the scenario keeps.
    for (const seed of [55671012, 55675490]) {
      const run = await runScenario({
        seed,
        timing: { ...timing, settleMs: 500 },
        steps: [
          { at: 1300, do: 'start', node: 'n1' },
          { at: 4195, do: 'start', node: 'n2' },
          { at: 7200, do: 'start', node: 'n3' },
          { at: 7805, do: 'storeOutage', forMs: 2000 },
          { at: 10_305, do: 'keyRollback', keys: 'leader *', forMs: 5500, hang: true, flakyMs: 1396 },
        ],
      });
      expect(checkRun(run).violations, `seed ${seed}`).toEqual([]);
    }
  });

  it('a node destroyed while its candidacy read was in flight never leads: a restarted node rejoins (destroyed-candidate-leads)', async () => {
    // Found by a 20,000-scenario run (seed 16023). n1 stood while leader 0 hung; its confirming read
    // was still waiting on the hung nonce when n1 was restarted (destroyed); the read ended 5 ms
    // later and the destroyed n1 became leader with nobody to end it: its JOIN poller took the new
    // run's join requests for ever, and n1#2 was never listed again.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n2', observer: true },
        { at: 50, do: 'start', node: 'n3' },
        { at: 2115, do: 'start', node: 'n1' },
        { at: 14_295, do: 'keyRollback', keys: 'leader 0', forMs: 8330, hang: true },
        { at: 16_055, do: 'pause', node: 'n3', forMs: 5565 },
        { at: 21_500, do: 'restart', node: 'n1' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n1 was a candidate whose read of the hung nonce was in flight at its restart.
    const roles = run.history.updatesOf('n1').flatMap((u) => (u.update.type === 'role' ? [u.update.role] : []));
    expect(roles).toEqual(['candidate']);
    expect(run.history.operations.some((o) => o.node === 'n1' && o.key?.endsWith('leader 0') && o.at < 21_500 && o.doneAt > 21_500)).toBe(true);
    expect(roles).not.toContain('leader');
  });

  it('a restarted node that knows no era does not claim while a leader nonce and an era nonce are both unreadable (era-hidden-by-two-keys)', async () => {
    // With 'leader 0' and every era nonce unavailable, the restarted n1 claimed era 1 at nonce 1
    // and led with token 2046 after its previous run's 2047 (era 1, nonce 0).
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 10_000, do: 'keyUnavailable', keys: 'leader 0', forMs: 20_000 },
        { at: 10_000, do: 'keyUnavailable', keys: 'era *', forMs: 20_000 },
        { at: 10_000, do: 'restart', node: 'n1' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: the restarted n1#2 stood while both keys were unreadable, and claimed only after.
    expect(rolesOf(run, 'n1#2').some((r) => r.role === 'candidate' && r.at < 30_000)).toBe(true);
    expect(run.history.claims.filter((c) => c.node === 'n1#2').map((c) => c.at >= 30_000)).not.toContain(false);
  });

  it('a LEAVE an earlier run left at nonce 0 does not remove the new run, which PINGs at nonce 1', async () => {
    // Found with the timing I = 1 s, T = 2.5 s: the new PONG worker starts at nonce 0, where the
    // stopped run's LEAVE still is; a LEAVE now counts only when it replaced what the worker read
    // there before.
    const run = await runScenario({
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 2500 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n2' },
        { at: 0, do: 'stop', node: 'n1' },
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'keyUnavailable', keys: 'id/n1 0', forMs: 3 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: the leader's PONG worker found the stopped run's LEAVE at nonce 0, while the new run PINGs at nonce 1.
    expect(run.history.operations.some((op) => op.node === 'n2' && op.op === 'exchange' && op.key?.endsWith('/id/n1 0') === true && op.result === '"LEAVE"')).toBe(true);
    expect(run.history.operations.some((op) => op.node === 'n1' && op.op === 'exchange' && op.key?.endsWith('/id/n1 1') === true && op.outcome === 'ok')).toBe(true);
  });
  it('an observer does not move on to a lower era because the nonces of the leadership it follows were too slow to read (observer-moves-on-partial-read)', async () => {
    // Found by a 100,000-scenario run (seed 20261124, scenario 5,422). n1 led era 1 at nonce 0 and
    // was restarted; as n1#2 it led era 2 from nonce 1, then moved to nonces 2 and 3 while every
    // command took 95–803 ms. The observer n3 followed era 2; its reads of nonces 1–3 then timed
    // out while the stale era-1 value at nonce 0 answered, and after T it "moved on" to era 1, as
    // an observer does after the store lost its data. Moving on needs a read of every nonce.
    const run = await runScenario({
      seed: 1_879_048_180,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n3', observer: true },
        { at: 1600, do: 'start', node: 'n2' },
        { at: 18_000, do: 'restart', node: 'n1' },
        { at: 21_605, do: 'latency', minMs: 95, maxMs: 803, forMs: 9400 },
        { at: 27_500, do: 'restart', node: 'n2' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });
  it('a list published by a write whose reply was lost never shares its list epoch with another list (lost-publication-epoch)', async () => {
    // Found by a 100,000-scenario run (seed 20261125, scenario 80,163). n3's publication of
    // "1 0 1000 [n2 n3 n4]" at nonce 0 landed but its reply was lost; n3 then published at nonce 2
    // from its last confirmed Version 1, so "1 0 1000 [n1 n2 n3 n4]": one epoch, two lists.
    // Followers that had fetched the first took every later header of epoch 1 for the same list,
    // and n1 was never listed on any of them. The next Version goes above every one tried.
    const run = await runScenario({
      seed: 715_870_113,
      timing,
      steps: [
        { at: 1265, do: 'start', node: 'n3' },
        { at: 1370, do: 'start', node: 'n4' },
        { at: 2220, do: 'start', node: 'n2' },
        { at: 3375, do: 'failures', probability: 0.2, forMs: 5995, after: true, ops: ['get', 'take', 'getRange', 'compareAndSet'] },
        { at: 8965, do: 'start', node: 'n1' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });
  it('a candidate counts stillness only from reads that reached the store (stillness-unseen-in-outage)', async () => {
    // Found by a 100,000-scenario run (seed 20261126, scenario 10,363). The store was out for 9 s;
    // n2, the leader, re-validated its lease at 15,600 ms. n1, which had read nothing during the
    // outage, stood, found leader 0 unavailable for 180 ms, claimed at nonce 1 and confirmed 100 ms
    // later on the stillness it had "seen" since before the outage: both led for 820 ms.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n2' },
        { at: 2680, do: 'start', node: 'n1' },
        { at: 5715, do: 'storeOutage', forMs: 8970 },
        { at: 15_605, do: 'keyUnavailable', keys: 'leader 0', forMs: 180 },
      ],
    });
    const check = checkRun(run);
    expect(check.violations).toEqual([]);
    expect(check.measures.dualLeadershipMs).toBe(0);
    // The situation: n2 had re-validated its lease when n1, blind through the outage, read the
    // window with leader 0 unavailable. Since a candidate that stood blind claims only on a read of
    // every nonce (for up to T/2: docs/protocol.md, "Across a store outage"), n1 no longer claims at
    // nonce 1 then: it reads again, sees n2 publishing and follows it.
    const revalidated = rolesOf(run, 'n2').find((r) => r.reason === 'revalidated')!;
    expect(revalidated.at).toBeLessThanOrEqual(15_605);
    expect(run.history.claims.filter((c) => c.node === 'n1' && c.at >= 15_605)).toEqual([]);
    expect(rolesOf(run, 'n1').find((r) => r.at >= 15_605)).toMatchObject({ role: 'follower', reason: 'leader-alive' });
  });
  it('a claim still for T does not make a follower stand: its candidate may be confirming right then (claim-still-while-confirming)', async () => {
    // Found by a 100,000-scenario run (seed 20261127, scenario 57,186). n2 claimed era 2 at nonce 1
    // and waited T while leader 0 (n3's) was unavailable; it confirmed at 31,492 ms, and its first
    // publication took 211 ms. n3, which had watched n2's claim stand still for T, stood at 31,600,
    // claimed era 3 at nonce 0 and confirmed 100 ms later: both led for 792 ms. A claim counts as
    // still only after T + 2I (its candidate confirms by T + I and publishes within an operation).
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n3' },
        { at: 1070, do: 'start', node: 'n2' },
        { at: 4825, do: 'start', node: 'n1', observer: true },
        { at: 21_075, do: 'storeOutage', forMs: 4530 },
        { at: 23_365, do: 'keyUnavailable', keys: 'leader 0', forMs: 8130, stallMs: 211 },
      ],
    });
    const check = checkRun(run);
    expect(check.violations).toEqual([]);
    expect(check.measures.dualLeadershipMs).toBe(0);
  });
  it('a nonce that newly fails makes a reader wait before it stands on stillness: a leader may have appeared there since its last look (newly-failed-nonce)', async () => {
    // Found by `pnpm chaos` (seed 3302). n3 read an empty window from 3200 to 7200; n1 claimed at
    // 7515 and led at 7615 at leader 0, which became unavailable to everyone at 7620. n3's read at
    // 8200 failed on nonce 0; it counted the empty window as still for T, stood, claimed at nonce 1
    // and confirmed at 8300: both led until n1's next publication at 8615.
    const scenario: Scenario = {
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n2', observer: true },
        { at: 2515, do: 'start', node: 'n1' },
        { at: 3200, do: 'start', node: 'n3' },
        { at: 7620, do: 'keyUnavailable', keys: 'leader 0', forMs: 685 },
      ],
    };
    const run = await runScenario(scenario);
    const check = checkRun(run);
    expect(check.violations).toEqual([]);
    expect(check.measures.dualLeadershipMs).toBe(0);
    // The situation: n1 led at leader 0 from before the fault, and n3, whose empty window had been
    // still for T, read leader 0 and failed while it was unavailable.
    const n1Leads = run.history.updatesOf('n1').find((u) => u.update.type === 'leader' && u.update.leader?.id === 'n1')!;
    expect(n1Leads.at).toBeLessThan(7620);
    expect(n1Leads.update.type === 'leader' && n1Leads.update.leader?.nonce).toBe(0);
    const missed = run.history.operations.find((r) => r.node === 'n3' && r.key?.endsWith('/leader 0') === true && r.outcome === 'error' && r.at >= 3200 + timing.timeoutMs && r.at < 7620 + 685);
    expect(missed, 'n3 read leader 0 and failed after its window had been still for T').toBeDefined();
    // n3 does not stand while it could not look there: it follows n1, found at the next nonce.
    expect(rolesOf(run, 'n3').filter((r) => r.at < 7620 + 685 + 2 * timing.intervalMs)).toEqual([]);
    expect(run.history.updatesOf('n3').some((u) => u.update.type === 'leader' && u.update.leader?.id === 'n1')).toBe(true);
  });
  it('a claimed candidate waiting for stillness at a fractional time does not spin: the wake-up timed to the stillness finds it still (pnpm chaos --seed 20261127)', async () => {
    // Latency draws give fractional times; `now - since >= T` and `since + T <= now` disagreed by a
    // rounding error, so the candidate's wake-up at `since + T` found it not still yet, and waited
    // for it again at once: more than 5,000 timer callbacks at one instant.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 155, do: 'start', node: 'n1' },
        { at: 1160, do: 'keyUnavailable', keys: 'leader *', forMs: 8770, stallMs: 501 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n1 confirmed its claim at a fractional time.
    const led = run.history.updatesOf('n1').find((u) => u.update.type === 'role' && u.update.role === 'leader');
    expect(led !== undefined && !Number.isInteger(led.at)).toBe(true);
  });
  it('a candidate does not confirm over a live leader of a worse leadership, elected while a better claim was hidden (hidden-claim-masks-live-leader, pnpm chaos --seed 20261127)', async () => {
    // n1 claims era 1 at leader nonce 0 just before that nonce becomes unavailable for 6.3 s; n3,
    // which never saw the claim, is elected at nonce 1 (nonce 0 known unavailable). When nonce 0 is
    // back, n2, which saw the claim before, tracks it (era 1, nonce 0 ranks above era 1, nonce 1),
    // stands on its stillness, and claimed era 2 over it; watching only the best leadership, it
    // confirmed while n3 still led: two leaders for 195 ms.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 5415, do: 'start', node: 'n1' },
        { at: 5480, do: 'start', node: 'n2' },
        { at: 6675, do: 'start', node: 'n3' },
        { at: 10_485, do: 'keyUnavailable', keys: 'leader 0', forMs: 6295 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n3 led at nonce 1 while n2 claimed over the hidden claim, and n2 was elected
    // only after n3, dethroned by that claim, had stopped publishing for T.
    const n3 = rolesOf(run, 'n3');
    const n2Leads = rolesOf(run, 'n2').find((r) => r.role === 'leader');
    const n3Stops = n3.find((r) => r.reason === 'dethroned');
    expect(n3.some((r) => r.role === 'leader')).toBe(true);
    expect(n2Leads !== undefined && n3Stops !== undefined && n2Leads.at >= n3Stops.at).toBe(true);
    expect(run.history.updatesOf('n2').some((u) => u.update.type === 'leader' && u.update.leader?.era === 2 && u.update.leader.nonce === 0)).toBe(true);
  });
  it('a follower whose wait after a newly failed nonce has passed reads every nonce, and stands; its claim, which replaced a live leader’s copy, waits for that leader (pnpm chaos --seed 20261129)', async () => {
    // The store loses its data just after n3 claimed: n3 (claim lost) and n2 keep tracking that
    // claim, which ranks above the leader n4 elected next (same era and nonce, a lower id). A nonce
    // had newly failed for them, and only a read of every nonce ends that wait; their polls read
    // the nonce where n4 publishes, never all of them: they never stood, never rejoined. Once they
    // did, n3's claim replaced n4's copy at nonce 0, and n3 forgot n4 (found nowhere) and
    // confirmed while n4 led: two leaders for 400 ms.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1', observer: true },
        { at: 0, do: 'start', node: 'n3' },
        { at: 1005, do: 'failures', probability: 0.1, forMs: 9855 },
        { at: 3000, do: 'start', node: 'n4' },
        { at: 3005, do: 'storeOutage', forMs: 2000 },
        { at: 7855, do: 'start', node: 'n2' },
        { at: 9860, do: 'flush' },
      ],
    });
    const { violations, measures } = checkRun(run);
    expect(violations).toEqual([]);
    // A run whose store lost its data promises no single leader; this one has none the less.
    expect(measures.dualLeadershipMs).toBe(0);
    // The situation: n3 lost its claim to the flush, and n4 led. Since a read of every nonce lets go
    // of a claim found nowhere (pnpm chaos --seed 20261209), n3 and n2 follow n4 and never stand
    // again; without a read of every nonce they would track the lost claim for ever.
    const n3 = rolesOf(run, 'n3');
    const lost = n3.find((r) => r.reason === 'claim-lost');
    const n4Leads = rolesOf(run, 'n4').find((r) => r.role === 'leader');
    expect(lost !== undefined && n4Leads !== undefined && n4Leads.at > lost.at).toBe(true);
    for (const node of ['n2', 'n3']) {
      expect(rolesOf(run, node).filter((r) => r.at > n4Leads!.at)).toEqual([]);
      const leader = run.history.updatesOf(node).find((u) => u.update.type === 'leader' && u.at > n4Leads!.at)?.update;
      expect(leader).toMatchObject({ leader: { id: 'n4' } });
    }
  });

  it('a follower of a dead leader stands once it reads again where that leader published, though another leader PONGs it (pnpm chaos --seed 20261203)', async () => {
    // n1 leads for 5 ms (era 1, nonce 0) and dies; the store loses its data, so n3 claims era 1 at
    // nonce 0 again, which ranks below n1's by its id. The leader key hung for n2 meanwhile: n2's
    // reads missed the nonce of n1's copy, so stillness was no evidence, only PONG silence. n2
    // joined n3, and n3's PONGs kept it from standing: it followed the dead n1 for ever.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 880, do: 'start', node: 'n1' },
        { at: 880, do: 'start', node: 'n2' },
        { at: 5985, do: 'crash', node: 'n1' },
        { at: 6385, do: 'flush' },
        { at: 7825, do: 'start', node: 'n3' },
        { at: 7935, do: 'keyRollback', keys: 'leader *', forMs: 3950, hang: true },
      ],
    });
    const { violations } = checkRun(run);
    expect(violations).toEqual([]);
    // The situation: n3 led era 1, listing n2, while n2 still followed n1 at era 1.
    const n3Leads = run.history.updatesOf('n3').find((u) => u.update.type === 'leader' && u.update.leader?.id === 'n3');
    expect(n3Leads).toBeDefined();
    const n2Leader = (at: number) => run.history.updatesOf('n2').filter((u) => u.at <= at && u.update.type === 'leader').at(-1)?.update;
    expect(n2Leader(n3Leads!.at + 1000)).toMatchObject({ leader: { id: 'n1', era: 1 } });
    // Once n2 read nonce 0 and 1 again, n1's stillness counted: it stood, and one leader leads all.
    const n2 = rolesOf(run, 'n2');
    expect(n2.some((r) => r.reason === 'stale' && r.at > n3Leads!.at)).toBe(true);
  });

  it('a follower lets go of a claim the store lost with its data and follows the leader elected since (pnpm chaos --seed 20261209)', async () => {
    // n4 leads; the store loses its data and its leader key is unavailable for 12 s, so n4's lease
    // lapses. n1 and n2 stand on the stillness; n2 sees n1's claim (era 2) and follows it; the
    // store loses its data again, n1's claim with it. n1 finds its claim gone (claim-lost), and n4
    // re-validates at era 1 (the era record went too). n2 kept the lost claim as the best leadership
    // known, stood once it went still, and deposed n4 with era 3 (18,265 ms to converge, bound 16,000).
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n4' },
        { at: 730, do: 'start', node: 'n3' },
        { at: 830, do: 'start', node: 'n1' },
        { at: 830, do: 'start', node: 'n2' },
        { at: 9735, do: 'crash', node: 'n3' },
        { at: 16105, do: 'flush' },
        { at: 16345, do: 'keyUnavailable', keys: 'leader *', forMs: 12260 },
        { at: 28835, do: 'flush' },
      ],
    });
    const { violations } = checkRun(run);
    expect(violations).toEqual([]);
    // The situation: n2 followed n1's claim just before the second flush, and n1 lost it.
    const flushAt = 28835;
    const n2 = rolesOf(run, 'n2');
    expect(n2.some((r) => r.reason === 'better-leader-seen' && r.at <= flushAt && r.at > flushAt - 1000)).toBe(true);
    expect(rolesOf(run, 'n1').some((r) => r.reason === 'claim-lost' && r.at > flushAt)).toBe(true);
    expect(rolesOf(run, 'n4').some((r) => r.reason === 'revalidated' && r.at > flushAt)).toBe(true);
    // n2 follows n4 from its next read, never stands again, and n4 is never deposed.
    expect(n2.filter((r) => r.at > flushAt)).toEqual([]);
    expect(rolesOf(run, 'n4').filter((r) => r.at > flushAt && r.role !== 'leader')).toEqual([]);
    const n2Members = run.history.updatesOf('n2').find((u) => u.at > flushAt && u.update.type === 'members');
    expect(n2Members?.at).toBeLessThan(flushAt + 2 * timing.intervalMs);
  });

  it('a follower of a leader the store lost, polling the nonce where a worse leader publishes, reads every nonce once its wait for a newly failed nonce has passed, and stands (blind-never-looks-again)', async () => {
    // n1 leads era 1 at nonce 0 and dies; the store loses its data, and n2, started after, is
    // elected at era 1, nonce 0 again (below n1 by its id). Random failures make a nonce newly fail
    // at almost every scan of n3, which follows the lost n1: stillness is no evidence until a read
    // of every nonce started after the last such wait has completed. Its polls read nonce 0 only,
    // where n2 publishes, and never scan while n2 publishes: only the read of every nonce its wait
    // asks for ends that wait (once the failures end), and n3 stands.
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 2045, do: 'start', node: 'n3' },
        { at: 2160, do: 'start', node: 'n4' },
        { at: 6580, do: 'failures', probability: 0.3, forMs: 10_860 },
        { at: 8015, do: 'crash', node: 'n1' },
        { at: 8165, do: 'flush' },
        { at: 10_635, do: 'start', node: 'n2' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n3 followed n1, and n2 led at n1's era and nonce after the flush.
    const followed = run.history.updatesOf('n3').flatMap((u) => (u.update.type === 'leader' && u.update.leader ? [u.update.leader] : []));
    expect(followed[0]).toMatchObject({ id: 'n1', era: 1, nonce: 0 });
    const n2 = run.history.updatesOf('n2').find((u) => u.update.type === 'leader' && u.update.leader?.id === 'n2');
    expect(n2?.update).toMatchObject({ leader: { era: 1, nonce: 0 } });
    // n3 stood after n2 led, on a read of every nonce whole (its polls read one header at a time).
    const stood = rolesOf(run, 'n3').find((r) => r.role === 'candidate' && r.at > n2!.at);
    expect(stood?.reason).toBe('stale');
    const whole = run.history.operations.filter((op) => op.node === 'n3' && op.at > n2!.at && op.at <= stood!.at && op.op === 'get' && op.key?.includes('/leader ') === true);
    expect(new Set(whole.map((op) => op.key)).size).toBe(4);
  });

  it('a follower whose poll finds a worse leader where the claim it follows was reads every nonce, sees the claim lost and follows that leader (lost-claim-unchecked)', async () => {
    // n1 and n3 stand blind through a store outage; n3 follows n1's claim (era 1, nonce 0), and the
    // store loses its data. n2 is elected at nonce 0 (era 1, a lower rank than n1's claim by id).
    // n3's polls read nonce 0 only, where n2 publishes, and a read of every nonce first failed on
    // nonce 3 (unavailable until 11,990 ms): without reading every nonce again it kept the lost
    // claim, stood once it went still and deposed n2 (no leader for 4.5 s).
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 315, do: 'start', node: 'n3' },
        { at: 2870, do: 'start', node: 'n4' },
        { at: 3510, do: 'storeOutage', forMs: 3115 },
        { at: 5690, do: 'start', node: 'n2' },
        { at: 7390, do: 'keyUnavailable', keys: 'leader 3', forMs: 4600 },
        { at: 7425, do: 'failures', probability: 0.05, forMs: 3135 },
        { at: 7660, do: 'flush' },
      ],
    });
    const { violations, measures } = checkRun(run);
    expect(violations).toEqual([]);
    expect(measures.dualLeadershipMs).toBe(0);
    // The situation: n3 followed n1's claim before the flush, and n2 led after it.
    const n3 = rolesOf(run, 'n3');
    expect(n3.some((r) => r.reason === 'better-leader-seen' && r.at < 7660)).toBe(true);
    const n2Leads = rolesOf(run, 'n2').find((r) => r.role === 'leader');
    expect(n2Leads?.at).toBeGreaterThan(7660);
    // n3 follows n2 once nonce 3 is back, never stands again, and n2 leads to the end.
    expect(n3.filter((r) => r.at > 7660)).toEqual([]);
    const followed = run.history.updatesOf('n3').find((u) => u.update.type === 'leader' && u.update.leader?.id === 'n2');
    expect(followed?.at).toBeLessThan(7390 + 4600 + timing.intervalMs);
    expect(rolesOf(run, 'n2').filter((r) => r.at > n2Leads!.at)).toEqual([]);
  });

  it('a candidate whose claim replaced a live leader’s copy waits until that leader is still for T (rival-forgotten-when-replaced)', async () => {
    // n1 claims era 1 at nonce 0 after the store lost its data, and n3 follows the claim; nonce 0
    // then becomes unavailable for 6.65 s, so n1 cannot confirm, and n2, which never saw the
    // claim, is elected at nonce 1. n3 stands on the hidden claim's stillness and claims era 2 at
    // nonce 1, the lowest nonce it can write, over n2's copy: n2 is found nowhere in the window,
    // yet leads until its next read. Forgotten at once, it let n3 confirm while n2 led (175 ms).
    const run = await runScenario({
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 1620, do: 'start', node: 'n3' },
        { at: 2510, do: 'failures', probability: 0.3, forMs: 11_045 },
        { at: 2755, do: 'storeOutage', forMs: 3785 },
        { at: 3795, do: 'start', node: 'n4' },
        { at: 6115, do: 'flush' },
        { at: 8795, do: 'start', node: 'n2' },
        { at: 9015, do: 'keyUnavailable', keys: 'leader 0', forMs: 6650 },
      ],
    });
    const { violations, measures } = checkRun(run);
    expect(violations).toEqual([]);
    expect(measures.dualLeadershipMs).toBe(0);
    // The situation: n2 led era 1 at nonce 1, and n3 stood while it led and then led era 2 at the
    // same nonce, after n2 was dethroned.
    const n2 = run.history.updatesOf('n2').find((u) => u.update.type === 'leader' && u.update.leader?.id === 'n2')?.update;
    expect(n2).toMatchObject({ leader: { era: 1, nonce: 1 } });
    const n2Leads = rolesOf(run, 'n2').find((r) => r.role === 'leader')!;
    const n2Stops = rolesOf(run, 'n2').find((r) => r.reason === 'dethroned')!;
    const n3Stands = rolesOf(run, 'n3').find((r) => r.role === 'candidate' && r.at > n2Leads.at)!;
    expect(n3Stands.at).toBeLessThan(n2Stops.at);
    const n3Leads = rolesOf(run, 'n3').find((r) => r.role === 'leader')!;
    expect(n3Leads.at).toBeGreaterThanOrEqual(n2Stops.at);
    expect(run.history.updatesOf('n3').some((u) => u.update.type === 'leader' && u.update.leader?.id === 'n3' && u.update.leader.era === 2 && u.update.leader.nonce === 1)).toBe(true);
  });
});
