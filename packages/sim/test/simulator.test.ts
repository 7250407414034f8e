import { ConfigError } from '@roster/kv-adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkRun,
  checkScenario,
  formatHistory,
  formatScenario,
  isGarbage,
  runScenario,
  scenarioArbitrary,
  type Run,
  type Scenario,
  type Step,
} from '../src/index.js';

const timing = { intervalMs: 1000, timeoutMs: 5000 };
const starts = (...ids: string[]): Step[] => ids.map((node) => ({ at: 0, do: 'start', node }));
const ops = (run: Run, filter: (text: string) => boolean) => run.history.operations.filter((r) => filter(`${r.node} ${r.op} ${r.key ?? ''} ${r.value ?? ''} ${r.fault ?? ''}`));

describe('the simulator', () => {
  it('runs the same scenario to the same history, event for event and operation for operation', async () => {
    const scenario: Scenario = {
      seed: 7,
      timing,
      steps: [
        ...starts('n1', 'n2', 'n3'),
        { at: 9000, do: 'failures', probability: 0.3, after: true, forMs: 6000 },
        { at: 10_000, do: 'latency', minMs: 0, maxMs: 800, forMs: 5000 },
        { at: 12_000, do: 'pause', node: 'n1', forMs: 7000 },
        { at: 14_000, do: 'keyUnavailable', keys: 'leader 0', node: 'n2', forMs: 4000 },
        { at: 20_000, do: 'crash', node: 'n3' },
      ],
    };
    const a = await runScenario(scenario);
    const b = await runScenario(scenario);
    const text = (run: Run) => formatHistory(run.history, { maxOperations: Infinity });
    expect(a.history.operations.length).toBeGreaterThan(500);
    expect(text(b)).toBe(text(a));
    expect(b.history.samples).toEqual(a.history.samples);
  });

  it('runs a 60 s scenario of 10 nodes in well under a second of wall time', async () => {
    const scenario: Scenario = {
      seed: 1,
      timing,
      steps: [
        ...starts('n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'n10'),
        { at: 15_000, do: 'crash', node: 'n1' },
        { at: 25_000, do: 'pause', node: 'n2', forMs: 7000 },
        { at: 30_000, do: 'keyUnavailable', keys: 'leader 0', forMs: 4000 },
        { at: 35_000, do: 'restart', node: 'n1' },
        { at: 38_000, do: 'storeOutage', forMs: 2000 },
        { at: 41_000, do: 'stop', node: 'n4' },
      ],
    };
    await runScenario(scenario); // warm up the JIT
    const started = performance.now();
    const run = await runScenario(scenario);
    const wallMs = performance.now() - started;
    console.log(`60 s of 10 nodes (${run.history.end} ms of virtual time, ${run.history.operations.length} KV operations): ${wallMs.toFixed(0)} ms of wall time`);
    expect(run.history.end).toBeGreaterThanOrEqual(60_000);
    expect(wallMs).toBeLessThan(1000);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('labels incarnations: a restart makes n1#2, a crash and a graceful stop end them', async () => {
    const run = await runScenario({
      seed: 1,
      timing,
      steps: [...starts('n1', 'n2'), { at: 10_000, do: 'restart', node: 'n1' }, { at: 20_000, do: 'stop', node: 'n2' }, { at: 21_000, do: 'crash', node: 'n1' }],
    });
    expect(run.history.incarnations.map((i) => [i.label, i.end, i.endedAt])).toEqual([
      ['n1', 'crashed', 10_000],
      ['n2', 'stopped', 20_000],
      ['n1#2', 'crashed', 21_000],
    ]);
  });

  it('skips a step that makes no sense when it comes, and says why', async () => {
    const run = await runScenario({ seed: 1, timing, steps: [...starts('n1'), { at: 1000, do: 'stop', node: 'n2' }, { at: 2000, do: 'start', node: 'n1' }] });
    const skipped = run.history.entries.flatMap((e) => (e.kind === 'step' && e.skipped ? [`${e.step.do} ${'node' in e.step ? e.step.node : ''}: ${e.skipped}`] : []));
    expect(skipped).toEqual(['stop n2: not running', 'start n1: already running']);
  });

  it('pauses a node: its timers and store replies wait, its lease still runs out, and on resume it re-validates it', async () => {
    const run = await runScenario({ seed: 1, timing, steps: [...starts('n1'), { at: 10_000, do: 'pause', node: 'n1', forMs: 4000 }] });
    const during = ops(run, () => true).filter((r) => r.at > 10_000 && r.at < 14_000);
    expect(during).toEqual([]);
    // n1 led before the pause, stops counting as leader at its renew deadline (T/2 after its last
    // cycle started), and when it resumes re-validates its lease (re-read, two publications by
    // compare-and-set): nobody better declared, so it leads again within an interval.
    const at = (t: number) => run.history.samples.filter((s) => s.at <= t).at(-1)!.leaders;
    expect(at(9999)).toEqual(['n1']);
    expect(at(13_999)).toEqual([]);
    expect(at(15_000)).toEqual(['n1']);
    // Users of n1 are told of the lapse at its deadline, and of the re-validation: nothing else.
    const shown = run.history.updatesOf('n1').flatMap((u) => (u.update.type === 'role' && u.at >= 10_000 ? [[u.at, u.update.role, u.update.reason]] : []));
    expect(shown.map(([, role, reason]) => `${role} ${reason}`)).toEqual(['candidate lease-expired', 'leader revalidated']);
    expect(shown[0]![0]).toBeLessThan(14_000);
    expect(run.history.entries.some((e) => e.kind === 'resumed' && e.at === 14_000)).toBe(true);
  });

  it('moves the leader to the next nonce when its key is unavailable, and every node follows it there', async () => {
    const run = await runScenario({ seed: 1, timing, steps: [...starts('n1', 'n2'), { at: 10_000, do: 'keyUnavailable', keys: 'leader 0', forMs: 5000 }] });
    expect(ops(run, (t) => t.includes('compareAndSet roster/sim/chaos/leader 1')).length).toBeGreaterThan(0);
    expect(ops(run, (t) => t.includes('keyUnavailable#')).length).toBeGreaterThan(0);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('injects outages, failures and latency through the nodes’ fault-injecting views', async () => {
    const run = await runScenario({
      seed: 3,
      timing,
      steps: [
        ...starts('n1', 'n2'),
        { at: 10_000, do: 'storeOutage', node: 'n2', forMs: 2000 },
        { at: 15_000, do: 'failures', probability: 0.5, forMs: 2000 },
        { at: 20_000, do: 'latency', minMs: 100, maxMs: 300, forMs: 2000 },
      ],
    });
    expect(ops(run, (t) => t.startsWith('n2') && t.includes('storeOutage#')).length).toBeGreaterThan(0);
    expect(ops(run, (t) => t.startsWith('n1') && t.includes('storeOutage#'))).toEqual([]);
    expect(ops(run, (t) => t.includes('failure#')).length).toBeGreaterThan(0);
    expect(run.history.operations.some((r) => r.fault?.startsWith('latency#') && r.doneAt - r.at >= 100)).toBe(true);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('hides keys from one node alone with a stale routing table until it heals, never that node’s own id key', async () => {
    const scenario: Scenario = { seed: 1, timing, steps: [...starts('n1', 'n2'), { at: 10_000, do: 'staleRouting', node: 'n2', keys: 'leader *', forMs: 3000 }] };
    const run = await runScenario(scenario);
    const hidden = run.history.operations.filter((r) => r.fault?.startsWith('keyUnavailable#') === true);
    expect(hidden.length).toBeGreaterThan(0);
    expect(hidden.every((r) => r.node === 'n2' && r.key?.startsWith('roster/sim/chaos/leader ') === true && r.at >= 10_000 && r.at < 13_000)).toBe(true);
    expect(run.history.operations.some((r) => r.node === 'n1' && r.key?.startsWith('roster/sim/chaos/leader ') === true && r.at >= 10_000 && r.at < 13_000 && r.outcome === 'ok')).toBe(true);
    expect(run.views).toBe('per-node');
    expect(formatScenario(scenario)).toContain('   10000 ms  staleRouting leader * @n2 for 3000 ms');
    expect(checkRun(run).violations).toEqual([]);
    expect(() => checkScenario({ seed: 1, timing, steps: [{ at: 0, do: 'staleRouting', node: 'n2', keys: 'id/n2 0', forMs: 1 }] })).toThrow(ConfigError);
    expect(checkScenario({ seed: 1, timing, steps: [{ at: 0, do: 'staleRouting', node: 'n2', keys: 'id/n1 *', forMs: 1 }] }).steps).toHaveLength(1);
  });

  it('loses all the data on a flush, and the cluster republishes and converges', async () => {
    const run = await runScenario({ seed: 1, timing, steps: [...starts('n1', 'n2', 'n3'), { at: 20_000, do: 'flush' }] });
    // The leader reads its window by headers: an empty key reads as '' there.
    const readsOfLeader0 = ops(run, (t) => t.includes('get roster/sim/chaos/leader 0') || t.includes('getRange roster/sim/chaos/leader 0'));
    expect(readsOfLeader0.some((r) => r.at > 20_000 && (r.result === 'null' || r.result === '""'))).toBe(true);
    expect(checkRun(run).violations).toEqual([]);
  });

  it('writes garbage that no node adopts', async () => {
    const run = await runScenario({
      seed: 1,
      timing,
      steps: [
        ...starts('n1', 'n2'),
        { at: 3000, do: 'garbage', key: 'leader 1', value: '9 0 9 ghost! ghost' },
        { at: 3000, do: 'garbage', key: 'join 0', value: ' ghost! n9:0' },
        { at: 12_000, do: 'garbage', key: 'id/n2 0', value: 'LEAVE ' },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
  });

  it('prints a scenario one step a line', () => {
    const text = formatScenario({
      seed: 42,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n2', observer: true },
        { at: 4200, do: 'crash', node: 'n1' },
        { at: 5000, do: 'keyUnavailable', keys: 'leader 0', node: 'n2', forMs: 3000, stallMs: 200 },
        { at: 6000, do: 'failures', probability: 0.3, after: true, ops: ['set', 'compareAndSet'], keys: 'leader *', forMs: 2000 },
        { at: 9500, do: 'garbage', key: 'leader 1', value: '1  0 4 ghost ghost' },
      ],
    });
    expect(text).toBe(
      [
        'scenario seed=42 I=1000 T=5000, per-node views, quiet from 9500 ms, converged by 25500 ms',
        '       0 ms  start n1',
        '       0 ms  start n2 (observer)',
        '    4200 ms  crash n1',
        '    5000 ms  keyUnavailable leader 0 @n2 for 3000 ms (stall 200 ms)',
        '    6000 ms  failures p=0.3 after applying [set, compareAndSet] on leader * for 2000 ms',
        '    9500 ms  garbage leader 1 "1  0 4 ghost ghost"',
      ].join('\n'),
    );
  });

  it('prints a history with roles, leaders with era and fencing token, member lists and operations', async () => {
    const run = await runScenario({ seed: 1, timing, steps: starts('n1') });
    const text = formatHistory(run.history);
    expect(text).toContain('5000 ms  n1     role follower → candidate (stale)');
    expect(text).toContain('5100 ms  n1     leader n1 era 1 nonce 0 token 2047');
    expect(text).toContain('5100 ms  ==     leaders [n1]');
    expect(text).toMatch(/op +\d+ms +\+0 n1 +compareAndSet "roster\/sim\/chaos\/leader 0" "1 0 0 n1 n1" → ok swapped/);
  });
});

describe('scenarios as data', () => {
  it('checkScenario accepts what the generator makes, and JSON round trips', () => {
    fc.assert(
      fc.property(scenarioArbitrary(), (scenario) => {
        expect(checkScenario(JSON.parse(JSON.stringify(scenario)))).toEqual(scenario);
      }),
      { seed: 1, numRuns: 300 },
    );
  });

  it('checkScenario names the bad field', () => {
    const bad = (steps: unknown[]) => () => checkScenario({ seed: 1, timing, steps });
    expect(bad([{ at: 0, do: 'explode' }])).toThrow(ConfigError);
    expect(bad([{ at: 0, do: 'start', node: 'has space' }])).toThrow(/steps\[0\]\.node|node/);
    expect(bad([{ at: 5, do: 'flush' }, { at: 1, do: 'flush' }])).toThrow(/time order/);
    expect(bad([{ at: 0, do: 'keyUnavailable', keys: 'leader', forMs: 1 }])).toThrow(/leader 0/);
    expect(() => checkScenario({ seed: 1, timing: { intervalMs: 100, timeoutMs: 150 }, steps: [] })).toThrow(/twice/);
  });

  it('generates garbage that does not parse as what its key holds', () => {
    fc.assert(
      fc.property(scenarioArbitrary({ kinds: ['garbage'] }), (scenario) => {
        for (const step of scenario.steps) {
          if (step.do !== 'garbage') continue;
          const target = step.key.startsWith('leader') ? 'leader' : step.key.startsWith('join') ? 'join' : 'id';
          expect(isGarbage(target, step.value)).toBe(true);
        }
      }),
      { seed: 2, numRuns: 300 },
    );
  });

  it('shrinks toward few nodes and few steps', () => {
    // A made-up failure: any scenario with a crash. The counterexample keeps one node and the crash.
    const result = fc.check(
      fc.property(scenarioArbitrary(), (scenario) => !scenario.steps.some((s) => s.do === 'crash')),
      { seed: 3, numRuns: 200 },
    );
    expect(result.failed).toBe(true);
    const [scenario] = result.counterexample!;
    expect(scenario.steps).toEqual([
      { at: 0, do: 'start', node: 'n1' },
      { at: 0, do: 'crash', node: 'n1' },
    ]);
  });
});
