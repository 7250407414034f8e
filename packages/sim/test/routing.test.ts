import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KNOWN_ISSUES } from '../src/chaos/knownIssues.js';
import { checkRun, formatScenario, runScenario, type Run, type Scenario, type Timing } from '../src/index.js';
import { routingRun } from '../src/properties/routingTolerance.js';
import { routingScenarioArbitrary } from '../src/scenario/arbitraries.js';

const TIMINGS: readonly Timing[] = [
  { intervalMs: 1000, timeoutMs: 5000 },
  { intervalMs: 100, timeoutMs: 500 },
];

/** Generated runs per timing, from the environment (`ROSTER_ROUTING_RUNS`) or 120 (12,000 were checked by hand with four seeds). */
const RUNS = Number(process.env.ROSTER_ROUTING_RUNS) || 120;
/** fast-check's seed, from the environment (`ROSTER_ROUTING_SEED`) or fixed. */
const SEED = Number(process.env.ROSTER_ROUTING_SEED) || 20_261_129;

/** The longest stretch within [from, to) without one of `times`. */
function longestGap(times: readonly number[], from: number, to: number): number {
  const points = [from, ...times.filter((t) => t >= from && t < to).sort((a, b) => a - b), to];
  return Math.max(...points.slice(1).map((t, i) => t - points[i]!));
}

/**
 * What the stale routing table of `follower` did to it, from the KV operation log: the key where
 * `leader` published meanwhile, for how long the follower's reads of that key failed in a row,
 * and, until it stood (or its fault ended), the longest gaps between the leader's publications
 * there and between the PONGs the follower found at its id key.
 */
function blindness(run: Run, leader: string, follower: string) {
  const fault = run.scenario.steps.find((s) => s.do === 'staleRouting' && s.node === follower);
  if (fault?.do !== 'staleRouting') throw new Error(`no stale routing of ${follower}`);
  const stoodAt = run.history.updatesOf(follower).find((u) => u.at >= fault.at && u.update.type === 'role' && u.update.role === 'candidate')?.at;
  const until = Math.min(stoodAt ?? Infinity, fault.at + fault.forMs);
  const ops = run.history.operations.filter((o) => o.at >= fault.at);
  const published = ops.filter((o) => o.node === leader && o.at < until && o.op === 'compareAndSet' && o.key?.startsWith(`${run.prefix}leader `) === true && o.result === 'swapped');
  const keys = [...new Set(published.map((o) => o.key))];
  const reads = ops.filter((o) => o.node === follower && o.key === keys[0] && (o.op === 'get' || o.op === 'getRange'));
  const firstOk = reads.findIndex((o) => o.outcome === 'ok');
  const failed = firstOk === -1 ? reads : reads.slice(0, firstOk);
  const pongs = ops.filter((o) => o.node === follower && o.op === 'exchange' && o.key?.startsWith(`${run.prefix}id/${follower} `) === true && o.result?.startsWith('"PONG') === true);
  return {
    /** The keys (relative) where the leader published until the follower stood or healed. */
    publishedAt: keys.map((k) => k?.slice(run.prefix.length)),
    failedReadsMs: failed.length === 0 ? 0 : failed.at(-1)!.at - failed[0]!.at,
    publicationGapMs: longestGap(published.map((o) => o.doneAt), fault.at, until),
    pongGapMs: longestGap(pongs.map((o) => o.doneAt), fault.at, until),
    stoodAt,
  };
}

// Issue 29: on a Redis Cluster, a follower whose client had a stale routing table could not read
// the nonce where its leader published (MOVED mapped to "key unavailable") while the leader wrote
// it fine. It took the Version it could not see for still, stood, claimed era + 1 at the next nonce
// and led; the healthy leader was dethroned up to an interval later. Found by generated runs on
// the code before the fix (aee62d2), shrunk by hand.
describe('a follower whose stale routing table hides its leader’s nonce (issue 29)', () => {
  for (const timing of TIMINGS) {
    const { intervalMs: I, timeoutMs: T } = timing;
    // n1 starts first and leads; n2 follows, listed, and cannot read `leader 0` for 2T.
    const scenario: Scenario = {
      seed: 0,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: (13 * I) / 100, do: 'start', node: 'n2' },
        { at: 10 * I, do: 'staleRouting', node: 'n2', keys: 'leader 0', forMs: 2 * T },
      ],
    };

    it(`at I=${I}/T=${T}: does not stand while its leader publishes and PONGs it; the leader leads throughout`, async () => {
      const run = await runScenario(scenario);
      // The situation: n1 was the sole leader of a converged cluster when n2's table went stale;
      // n2's reads of the nonce where n1 published failed for longer than T, while (until n2 stood,
      // if it did) n1 published there every interval and n2 found a PONG every interval.
      const r = routingRun(run);
      expect(r?.leader).toBe('n1');
      expect(r?.excuse).toBeUndefined();
      const b = blindness(run, 'n1', 'n2');
      expect(b.publishedAt).toEqual(['leader 0']);
      expect(b.failedReadsMs).toBeGreaterThan(T);
      expect(b.publicationGapMs).toBeLessThanOrEqual(I);
      expect(b.pongGapMs).toBeLessThanOrEqual(I);
      // What must hold: no second leader, n1 not replaced (and every other property).
      expect(checkRun(run).violations).toEqual([]);
      expect(b.stoodAt).toBeUndefined();
    });
  }
});

// Two counterexamples to the first form of the fix (a follower blind to the one nonce where its
// leader had published, and listed), found by generated runs and by hand on aee62d2: the rule now
// counts any nonce the follower could not read since the Version last moved, and takes a PONG as
// proof that a leader lists it.
describe('a follower that hears its leader does not stand on what it could not read', () => {
  it('moved-nonce-unread: the leader’s own table hid its nonce, so it publishes at the next one, which the follower’s table hides: the follower still reads the frozen broadcast at the first, and does not stand on it while PONGed', async () => {
    const scenario: Scenario = {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 130, do: 'start', node: 'n2' },
        { at: 10_000, do: 'staleRouting', node: 'n1', keys: 'leader 0', forMs: 10_000 },
        { at: 10_000, do: 'staleRouting', node: 'n2', keys: 'leader 1', forMs: 10_000 },
      ],
    };
    const run = await runScenario(scenario);
    // The situation: n1 led, moved its broadcast to nonce 1, published there every interval, and
    // n2's reads of nonce 1 failed for longer than T while it found a PONG every interval.
    expect(routingRun(run)?.leader).toBe('n1');
    const b = blindness(run, 'n1', 'n2');
    expect(b.publishedAt).toEqual(['leader 1']);
    expect(b.failedReadsMs).toBeGreaterThan(5000);
    expect(b.publicationGapMs).toBeLessThanOrEqual(1000);
    expect(b.pongGapMs).toBeLessThanOrEqual(1000);
    // What must hold.
    expect(checkRun(run).violations, formatScenario(scenario)).toEqual([]);
    expect(b.stoodAt).toBeUndefined();
  });

  it('relisted-unseen: a follower dropped while the leader’s table hid its id key, taken back while its own table hides the leader’s nonce, never sees itself listed: the PONGs it finds say it is, and it does not stand', async () => {
    const scenario: Scenario = {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 130, do: 'start', node: 'n2' },
        { at: 10_000, do: 'staleRouting', node: 'n1', keys: 'id/n2 *', forMs: 6000 },
        { at: 16_200, do: 'staleRouting', node: 'n2', keys: 'leader 0', forMs: 10_000 },
      ],
    };
    const run = await runScenario(scenario);
    // The situation: n1 dropped n2 while it could not read n2's PINGs and listed it again after
    // 16.2 s, when n2 could no longer read the list; n2 went on finding PONGs.
    expect(routingRun(run)?.leader).toBe('n1');
    const lists = run.history.updatesOf('n1').flatMap((u) => (u.update.type === 'members' ? [{ at: u.at, update: u.update }] : []));
    expect(lists.some((l) => l.at < 16_200 && l.update.removed.includes('n2'))).toBe(true);
    expect(lists.some((l) => l.at > 16_200 && l.update.added.includes('n2'))).toBe(true);
    const b = blindness(run, 'n1', 'n2');
    expect(b.publishedAt).toEqual(['leader 0']);
    expect(b.failedReadsMs).toBeGreaterThan(5000);
    // What must hold.
    expect(checkRun(run).violations, formatScenario(scenario)).toEqual([]);
    expect(b.stoodAt).toBeUndefined();
  });
});

describe('a follower whose table hides its leader’s nonce right after it first saw it', () => {
  it('knows where that leader’s copy is from the read that first saw it, and does not stand while it finds PONGs (pnpm chaos --seed 20261210)', async () => {
    // n2 is elected at nonce 0; n1 sees it at 9,570 ms, and 5 ms later its table hides nonce 0. The
    // nonce of the copy followed was taken only from a read after the one that first saw it, so n1
    // did not know it: stillness counted though n2 PONGed it, and n1 stood and led beside n2.
    const run = await runAtOneSecond([
      { at: 3575, do: 'start', node: 'n2' },
      { at: 4570, do: 'start', node: 'n1' },
      { at: 9575, do: 'staleRouting', node: 'n1', keys: 'leader 0', forMs: 5100 },
    ]);
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n1 followed n2 before its table hid nonce 0, and found PONGs while it did.
    const followed = run.history.updatesOf('n1').find((u) => u.update.type === 'leader' && u.update.leader?.id === 'n2');
    expect(followed?.at).toBeLessThan(9575);
    expect(run.history.operations.some((op) => op.node === 'n1' && op.at > 9575 && op.at < 14_675 && op.op === 'exchange' && /^"PONG/.test(op.result ?? ''))).toBe(true);
    // n1 never stands, and n2 leads throughout.
    expect(run.history.updatesOf('n1').filter((u) => u.update.type === 'role')).toEqual([]);
    expect(leadershipsOf(run)).toEqual(['n2@0']);
  });
});

/** Runs `steps` at I = 1 s, T = 5 s (the chaos runs' timing), seed 0. */
function runAtOneSecond(steps: Scenario['steps']): Promise<Run> {
  return runScenario({ seed: 0, timing: { intervalMs: 1000, timeoutMs: 5000 }, steps });
}

/** Each leadership as it began, `node@nonce`: a node's own `leader` update naming itself. */
function leadershipsOf(run: Run): string[] {
  return run.history.entries.flatMap((e) => (e.kind === 'update' && e.update.type === 'leader' && e.update.leader?.id === e.node ? [`${e.node}@${e.update.leader.nonce}`] : []));
}

describe('what routing tolerance does not promise', () => {
  it('unlisted-and-blind (pnpm chaos --seed 20261208): a node whose table hides the nonce where the first leader is elected, and whom that leader never listed, has nothing to read and no PONG to find: it stands at T, and the property excuses the run', async () => {
    const run = await runAtOneSecond([
      { at: 0, do: 'start', node: 'n2' },
      { at: 1990, do: 'start', node: 'n1' },
      { at: 1995, do: 'staleRouting', node: 'n1', keys: 'leader 0', forMs: 5100 },
    ]);
    // The situation: n2 was elected at nonce 0 while n1's table hid it; n1 never listed; n1 led at
    // nonce 1 until n2's next read (the 10 ms of two leaders the property excuses).
    expect(leadershipsOf(run)).toEqual(['n2@0', 'n1@1']);
    expect(run.history.updatesOf('n2').some((u) => u.update.type === 'members' && u.at < 7095 && u.update.members.some((m) => m.id === 'n1'))).toBe(false);
    expect(routingRun(run)?.excuse).toMatch(/n1's table hid leader 0, where n2 led from 5100 ms without listing n1/);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('unlisted-and-blind, deposed (pnpm chaos --seed 20261210): the leader that never listed the blind node lists it once it follows it, which is no listing of its own', async () => {
    const run = await runAtOneSecond([
      { at: 3025, do: 'start', node: 'n1' },
      { at: 5010, do: 'start', node: 'n2' },
      { at: 5015, do: 'staleRouting', node: 'n2', keys: 'leader 0', forMs: 6115 },
    ]);
    // The situation: n1 led at nonce 0 without listing n2, n2 led at nonce 1 (15 ms of two leaders),
    // and n1, deposed, listed n2 as a follower before n2's table healed.
    expect(leadershipsOf(run)).toEqual(['n1@0', 'n2@1']);
    expect(run.history.updatesOf('n1').some((u) => u.update.type === 'members' && u.at < 11_130 && u.update.members.some((m) => m.id === 'n2'))).toBe(true);
    expect(routingRun(run)?.excuse).toMatch(/n2's table hid leader 0, where n1 led from 8125 ms without listing n2/);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('unlisted-and-blind, elected before the table went stale (pnpm chaos --seed 20261210): a leader that had not listed the node when its table hid the leader’s nonce excuses the run too', async () => {
    const scenario: Scenario = {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 3025, do: 'start', node: 'n1' },
        { at: 5010, do: 'start', node: 'n2' },
        { at: 8130, do: 'staleRouting', node: 'n2', keys: 'leader 0', forMs: 2985 },
      ],
    };
    const run = await runScenario(scenario);
    // The situation: n1 was elected at nonce 0 at 8,125 ms, 5 ms before n2's table hid that nonce
    // and before n2's first poll could see it; n1 never listed n2, and n2 led at nonce 1.
    expect(leadershipsOf(run)).toEqual(['n1@0', 'n2@1']);
    expect(run.history.updatesOf('n1').some((u) => u.update.type === 'leader' && u.update.leader?.id === 'n1' && u.at < 8130)).toBe(true);
    expect(routingRun(run)?.excuse).toMatch(/n2's table hid leader 0, where n1 led from 8125 ms without listing n2/);
    expect(checkRun(run).violations).toEqual([]);
  });
});

describe('stale routing tables in generated pure routing runs', () => {
  for (const timing of TIMINGS) {
    const { intervalMs: I, timeoutMs: T } = timing;
    it(`at I=${I}/T=${T}: keys unreadable to some nodes only never make two leaders, nor replace a leader whose writes land (every property holds)`, async () => {
      let blind = 0;
      const details = await fc.check(
        fc.asyncProperty(routingScenarioArbitrary({ timings: [timing] }), async (scenario) => {
          // Open issues (src/chaos/knownIssues.ts) are skipped, as in chaos runs.
          fc.pre(!KNOWN_ISSUES.some((k) => k.covers(scenario)));
          const run = await runScenario(scenario, { recordOperations: false });
          const r = routingRun(run);
          // The generator makes what it promises: a converged cluster with one leader, then stale tables.
          if (r?.leader === undefined) return false;
          const leader = run.history.incarnations.find((i) => i.label === r.leader)?.id;
          if (r.excuse === undefined && r.faults.some((f) => f.node !== leader && (f.keys === 'leader 0' || f.keys === 'leader *') && f.forMs > T)) blind++;
          return checkRun(run).violations.length === 0;
        }),
        { numRuns: RUNS, seed: SEED },
      );
      if (details.failed) {
        const scenario = details.counterexample![0];
        const run = await runScenario(scenario);
        const violations = checkRun(run).violations.map((v) => `[${v.property}] at ${v.at} ms: ${v.message}`);
        expect.fail(
          [
            `failed after ${details.numShrinks} shrinks: seed ${details.seed}, path ${details.counterexamplePath ?? ''} (ROSTER_ROUTING_SEED=${details.seed})`,
            formatScenario(scenario),
            routingRun(run)?.leader === undefined ? 'not a converged pure routing run' : violations.join('\n'),
            `replay: pnpm chaos --scenario '${JSON.stringify(scenario)}'`,
          ].join('\n'),
        );
      }
      // Many runs hid the leader's nonce from a follower for longer than T.
      expect(blind).toBeGreaterThan(RUNS / 10);
    });
  }
});
