import { describe, expect, it } from 'vitest';
import { checkHistory, type History } from '../src/index.js';
import { converged, fault, history, leader, members, role, takeOver } from './support/histories.js';

const only = (h: History) => checkHistory(h, { rules: ['recovery'] }).violations;
const killed = [fault('kill', 'n1', 1000, 10_000)];

describe('recovery: after the last fault, within 2T + 6I (1600 ms here), every live node follows one leader with the full member list', () => {
  it('a cluster that converges after a killed leader holds', () => {
    expect(only(history(takeOver(1600), { faults: killed }))).toEqual([]);
  });

  it('a live node whose member list still lacks a member at the end breaks it; the check shows the lines', () => {
    const lines = [...takeOver(1600), members(1800, 'n3', ['n3'])];
    const [v, ...rest] = only(history(lines, { faults: killed, end: 20_000 }));
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'recovery', at: 20_000 });
    expect(v!.message).toContain('not converged at the end of the run');
    expect(v!.around).toContainEqual(members(1800, 'n3', ['n3']));
  });

  it('nodes that follow different leaders, or a leader that does not report itself leader, are not converged', () => {
    const split = [...takeOver(1600), leader(1800, 'n3', 'n1', 1, 0)];
    expect(only(history(split, { faults: killed, end: 20_000 }))).toHaveLength(1);
    const unled = [...takeOver(1600), role(1800, 'n2', 'candidate', 'leader', 'lease-expired')];
    expect(only(history(unled, { faults: killed, end: 20_000 }))).toHaveLength(1);
  });

  it('converging only after the bound breaks it', () => {
    const lines = [...takeOver(1600), members(1800, 'n3', ['n3']), members(13_000, 'n3', ['n2', 'n3'])];
    const [v] = only(history(lines, { faults: [fault('kill', 'n1', 1000, 20_000), fault('cut-silent', 'n3', 1000, 10_000)], end: 20_000 }));
    expect(v).toMatchObject({ rule: 'recovery', at: 11_600 });
    expect(v!.message).toContain('converged for good only 3000 ms after the last fault ended at 10000 ms');
  });

  it('a node killed for good is judged gone from its SIGKILL on', () => {
    expect(only(history([...takeOver(1600), members(1800, 'n3', ['n3'])], { faults: [fault('kill', 'n1', 1000, 3000)], end: 3000 }))).toMatchObject([{ rule: 'recovery', at: 3000 }]);
  });

  it('is not judged on a run that ended before the bound', () => {
    const lines = [...takeOver(1600), members(1800, 'n3', ['n3'])];
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 9000)], end: 10_000 }))).toEqual([]);
  });

  it('a killed node that is back lists again; a node restarted and converged holds', () => {
    const lines = [...takeOver(1600), ...converged(3000, ['n1'], 'n2', 2), members(3100, 'n2', ['n1', 'n2', 'n3']), members(3100, 'n3', ['n1', 'n2', 'n3']), members(3100, 'n1', ['n1', 'n2', 'n3'])];
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 3000)] }))).toEqual([]);
  });

  it('lines read after the end (the runner stopping its nodes) are not judged', () => {
    const lines = [...converged(0, ['n1', 'n2'], 'n1'), role(5000, 'n1', 'follower', 'leader', 'stopped')];
    expect(only(history(lines, { end: 4000, nodes: ['n1', 'n2'] }))).toEqual([]);
  });
});
