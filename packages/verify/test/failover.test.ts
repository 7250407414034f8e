import { describe, expect, it } from 'vitest';
import { checkHistory, type History } from '../src/index.js';
import { converged, fault, history, role, takeOver } from './support/histories.js';

const only = (h: History) => checkHistory(h, { rules: ['failover'] }).violations;

describe('failover: a crashed or cut leader is replaced within T + 2I (700 ms here)', () => {
  for (const kind of ['kill', 'pause', 'cut-silent', 'cut-reset', 'drop-replies']) {
    it(`a leader taken out by ${kind} and replaced 600 ms later holds; 900 ms later breaks it`, () => {
      const n1After = kind === 'kill' ? [] : [role(1400, 'n1', 'candidate', 'leader', 'lease-expired')];
      const faults = [fault(kind, 'n1', 1000, 5000)];
      expect(only(history(takeOver(1600, ['n2', 'n3'], n1After), { faults }))).toEqual([]);
      const [v, ...rest] = only(history(takeOver(1900, ['n2', 'n3'], n1After), { faults }));
      expect(rest).toEqual([]);
      expect(v).toMatchObject({ rule: 'failover', at: 1700 });
      expect(v!.message).toBe(`n1 led when it was taken out (${kind}) at 1000 ms, and n2 reported leader only 900 ms after, over the bound of 700 ms, though n2, n3 could take over`);
    });
  }

  it('a leader never replaced breaks it', () => {
    const h = history(converged(0, ['n1', 'n2', 'n3'], 'n1'), { faults: [fault('kill', 'n1', 1000, 10_000)] });
    expect(only(h)[0]!.message).toContain('no other node reported leader to the end of the run');
  });

  it('is not required when the fault was shorter than the bound, hit a follower, or left no one to take over', () => {
    const lines = converged(0, ['n1', 'n2', 'n3'], 'n1');
    expect(only(history(lines, { faults: [fault('cut-silent', 'n1', 1000, 1400)] }))).toEqual([]);
    expect(only(history(lines, { faults: [fault('kill', 'n2', 1000, 10_000)] }))).toEqual([]);
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 10_000), fault('kill', 'n2', 900, 10_000), fault('cut-silent', 'n3', 900, 10_000)] }))).toEqual([]);
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 10_000), fault('store-freeze', 'store', 1000, 3000)] }))).toEqual([]);
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 10_000)], end: 1500 }))).toEqual([]);
  });

  it('the bound can be given', () => {
    const h = history(takeOver(1600), { faults: [fault('kill', 'n1', 1000, 10_000)] });
    expect(checkHistory(h, { rules: ['failover'], failoverBoundMs: 500 }).violations).toMatchObject([{ rule: 'failover', at: 1500 }]);
  });
});
