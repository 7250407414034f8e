import { describe, expect, it } from 'vitest';
import { checkHistory, commandsPerInterval } from '../src/index.js';
import { converged, history } from './support/histories.js';

const lines = converged(0, ['n1', 'n2', 'n3'], 'n1');

describe('operation-budget: no node exceeds the operation budget, when operations are known', () => {
  it('a node over the budget per interval breaks it, named with its count and the budget', () => {
    // 1000 ms at I = 100 ms: 10 intervals of 64 + 4 × 3 = 76 commands.
    const operations = new Map([['n1', 700], ['n2', 761]]);
    const [v, ...rest] = checkHistory(history(lines, { end: 1000, operations }), { rules: ['operation-budget'] }).violations;
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'operation-budget', at: 1000 });
    expect(v!.message).toBe('n2 issued 761 store operations over 1000 ms, over the budget of 760 (76 per interval of 100 ms)');
  });

  it('holds within the budget, and is not checked when operations are unknown', () => {
    expect(commandsPerInterval(3)).toBe(76);
    expect(checkHistory(history(lines, { end: 1000, operations: new Map([['n1', 760]]) }), { rules: ['operation-budget'] }).violations).toEqual([]);
    expect(checkHistory(history(lines, { end: 1000 }), { rules: ['operation-budget'] }).violations).toEqual([]);
  });
});
