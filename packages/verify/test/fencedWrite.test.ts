import { describe, expect, it } from 'vitest';
import { checkHistory, type FencedWrite } from '../src/index.js';
import { converged, history, write } from './support/histories.js';

const only = (writes: FencedWrite[]) => checkHistory(history(converged(0, ['n1', 'n2'], 'n1'), { writes }), { rules: ['fenced-write'] }).violations;

describe('fenced-write: a write fenced by a deposed leader’s token is refused by the register', () => {
  it('an accepted write whose token is below the highest seen breaks it; the check names the writer and both tokens', () => {
    const [v, ...rest] = only([write(100, 'n1', '4', true, '0'), write(900, 'n2', '8', true, '4'), write(950, 'n1', '4', true, '8')]);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'fenced-write', at: 950 });
    expect(v!.message).toContain("the register accepted n1's write at 950 ms with token 4, below the highest token seen 8");
    expect(v!.around.every((o) => o.node === 'n1')).toBe(true);
  });

  it('a register that forgot the highest token it accepted does not hide a stale write', () => {
    expect(only([write(900, 'n2', '8', true, '0'), write(950, 'n1', '4', true, '0')])).toMatchObject([{ rule: 'fenced-write', at: 950 }]);
  });

  it('refused stale writes and repeated writes of the current leadership hold', () => {
    expect(only([write(100, 'n1', '4', true, '0'), write(200, 'n1', '4', true, '4'), write(900, 'n2', '8', true, '4'), write(950, 'n1', '4', false, '8')])).toEqual([]);
  });

  it('tokens are compared as integers beyond 2^53', () => {
    expect(only([write(100, 'n2', '9007199254740994', true, '0'), write(200, 'n1', '9007199254740993', true, '9007199254740994')])).toHaveLength(1);
  });
});
