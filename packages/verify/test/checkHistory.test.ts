import { describe, expect, it } from 'vitest';
import { RosterError } from '@roster/kv-adapter';
import { checkHistory, formatViolation, InvalidHistoryError, RULE_NAMES } from '../src/index.js';
import { converged, fault, history, leader, members, role, takeOver, write } from './support/histories.js';

describe('checkHistory', () => {
  it('a legal history with a cut leader, a kill and a resign passes every rule', () => {
    const h = history(
      [
        ...takeOver(1600, ['n1', 'n2', 'n3'], [role(1380, 'n1', 'candidate', 'leader', 'lease-expired'), role(1400, 'n1', 'follower', 'candidate', 'stale')]),
        members(1700, 'n1', ['n1', 'n2', 'n3']),
        members(1700, 'n2', ['n1', 'n2', 'n3']),
        members(1700, 'n3', ['n1', 'n2', 'n3']),
        leader(1600, 'n1', 'n2', 2, 0),
      ],
      { faults: [fault('cut-silent', 'n1', 1000, 3000)], writes: [write(100, 'n1', '4', true, '0'), write(1700, 'n2', '8', true, '4'), write(2000, 'n1', '4', false, '8')], operations: new Map([['n1', 100]]) },
    );
    const report = checkHistory(h);
    expect(report.violations).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('measures each fault: the cut leader fenced itself in 380 ms, another led 600 ms after the cut, the cluster converged at once when it healed', () => {
    const h = history(
      [
        ...takeOver(1600, ['n1', 'n2', 'n3'], [role(1380, 'n1', 'candidate', 'leader', 'lease-expired'), role(1400, 'n1', 'follower', 'candidate', 'stale')]),
        leader(1600, 'n1', 'n2', 2, 0),
      ],
      { faults: [fault('cut-silent', 'n1', 1000, 3000), fault('latency', 'n3', 4000, 5000)] },
    );
    expect(checkHistory(h).faults).toEqual([
      { fault: fault('cut-silent', 'n1', 1000, 3000), selfFenceMs: 380, failoverMs: 600, recoveryMs: 0 },
      { fault: fault('latency', 'n3', 4000, 5000), recoveryMs: 0 },
    ]);
  });

  it('reports the recovery time when the cluster converges after the fault ends', () => {
    const h = history([...takeOver(1600, ['n2', 'n3']), ...converged(3300, ['n1'], 'n2', 2), members(3400, 'n2', ['n1', 'n2', 'n3']), members(3400, 'n3', ['n1', 'n2', 'n3']), members(3400, 'n1', ['n1', 'n2', 'n3'])], {
      faults: [fault('kill', 'n1', 1000, 3000)],
    });
    const [outcome] = checkHistory(h).faults;
    expect(outcome).toEqual({ fault: fault('kill', 'n1', 1000, 3000), failoverMs: 600, recoveryMs: 400 });
  });

  it('breaking several rules lists each violation in time order, naming its rule', () => {
    const h = history([...converged(0, ['n1', 'n2', 'n3'], 'n1', 1, '9'), role(900, 'n2', 'leader', 'candidate', 'confirmed'), leader(900, 'n2', 'n2', 1, 1, '5')], {
      writes: [write(950, 'n2', '5', true, '9')],
    });
    const report = checkHistory(h);
    expect(report.ok).toBe(false);
    expect(report.violations.map((v) => v.rule)).toEqual(['two-leaders', 'token-order', 'fenced-write', 'recovery']);
  });

  it('applies only the rules asked for', () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), role(900, 'n2', 'leader', 'candidate', 'confirmed')]);
    expect(checkHistory(h, { rules: ['token-order'] }).ok).toBe(true);
    expect(RULE_NAMES).toEqual(['two-leaders', 'token-order', 'fenced-write', 'failover', 'recovery', 'operation-budget']);
  });

  it('formats a violation as its rule, time and message, then the lines around it', () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), role(900, 'n2', 'leader', 'candidate', 'confirmed')], { end: 1000 });
    const text = formatViolation(checkHistory(h, { rules: ['two-leaders'] }).violations[0]!);
    expect(text.split('\n')[0]).toBe('two-leaders at 900 ms: n2 reported leader at 900 ms while n1 still reported leader (since 0 ms): two leaders for 100 ms');
    expect(text).toContain('     900 ms  n2  role leader (from candidate, confirmed)');
    expect(text).toContain('       0 ms  n1  leader n1 era 1 nonce 0 token 4');
  });

  it('rejects a history it cannot read with a typed error naming the field', () => {
    const bad = (more: Parameters<typeof history>[1], lines = converged(0, ['n1'], 'n1')) => {
      try {
        checkHistory(history(lines, more));
      } catch (error) {
        expect(RosterError.is(error, 'HISTORY_INVALID')).toBe(true);
        return (error as InvalidHistoryError).field;
      }
      return undefined;
    };
    expect(bad({ timing: { intervalMs: 0, timeoutMs: 500, renewDeadlineMs: 400 } })).toBe('timing.intervalMs');
    expect(bad({ start: 5, end: 1 })).toBe('start');
    expect(bad({ faults: [fault('kill', 'n1', 5, 1)] })).toBe('faults[0]');
    expect(bad({ writes: [write(1, 'n1', 'x', true, '0')] })).toBe('writes[0].token');
    const unsorted = { ...history([]), observations: [role(5, 'n1', 'leader'), role(1, 'n1', 'follower')] };
    expect(() => checkHistory(unsorted)).toThrow(expect.objectContaining({ code: 'HISTORY_INVALID', field: 'observations[1].at' }));
    expect(() => checkHistory(history([]), { failoverBoundMs: -1 })).toThrow(InvalidHistoryError);
    expect(() => checkHistory(history([]), { rules: ['no-such-rule' as never] })).toThrow(/Expected `rules`/);
  });
});

describe('fault outcomes', () => {
  it('a short cut that the leader rides through has no self-fence nor failover, even if it steps down much later', () => {
    const h = history([...converged(0, ['n1', 'n2', 'n3'], 'n1'), role(8000, 'n1', 'follower', 'leader', 'resigned'), role(8200, 'n2', 'leader', 'candidate', 'confirmed')], {
      faults: [fault('cut-silent', 'n1', 1000, 1200)],
    });
    expect(checkHistory(h, { rules: [] }).faults).toEqual([{ fault: fault('cut-silent', 'n1', 1000, 1200), recoveryMs: 0 }]);
  });
});
