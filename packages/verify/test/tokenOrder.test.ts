import { describe, expect, it } from 'vitest';
import { checkHistory, leaderships, type History } from '../src/index.js';
import { converged, fault, history, leader, role } from './support/histories.js';

const only = (h: History) => checkHistory(h, { rules: ['token-order'] }).violations;

/** n1 leads with `first`, steps down at 1000; n2 leads from 1700 with `second`. */
function twoLeaderships(first: string, second: string, era2 = 2): ReturnType<typeof history> extends History ? Parameters<typeof history>[0] : never {
  return [
    ...converged(0, ['n1', 'n2'], 'n1', 1, first),
    role(1000, 'n1', 'follower', 'leader', 'dethroned'),
    role(1700, 'n2', 'leader', 'candidate', 'confirmed'),
    leader(1700, 'n2', 'n2', era2, 0, second),
  ];
}

describe('token-order: the fencing token strictly increases from one leadership to the next', () => {
  it('a new leadership whose token is below the last one breaks it; the check names both leaders and tokens', () => {
    const [v, ...rest] = only(history(twoLeaderships('9', '5')));
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'token-order', at: 1700 });
    expect(v!.message).toBe("n2 began leading at 1700 ms with token 5 (era 2, nonce 0), not above n1's token 9 (era 1, nonce 0, at 0 ms)");
    expect(v!.around).toContainEqual(leader(1700, 'n2', 'n2', 2, 0, '5'));
    expect(v!.around).toContainEqual(leader(0, 'n1', 'n1', 1, 0, '9'));
  });

  it('an equal token is no increase', () => {
    expect(only(history(twoLeaderships('8', '8')))).toMatchObject([{ rule: 'token-order' }]);
  });

  it('rising tokens hold, compared as integers beyond 2^53', () => {
    expect(only(history(twoLeaderships('4', '8')))).toEqual([]);
    expect(only(history(twoLeaderships('9007199254740993', '9007199254740994')))).toEqual([]);
    expect(only(history(twoLeaderships('9007199254740994', '9007199254740993')))).toHaveLength(1);
  });

  it('a leader line repeated for the same leadership, or a follower naming the leader, is no new leadership', () => {
    const h = history([...twoLeaderships('4', '8'), leader(1800, 'n2', 'n2', 2, 0, '8'), leader(1750, 'n1', 'n2', 2, 0, '8')]);
    expect(leaderships(h).map((l) => `${l.node}:${l.token}`)).toEqual(['n1:4', 'n2:8']);
    expect(only(h)).toEqual([]);
  });

  it('a drop after the store lost its data is excused, and the order starts over from there', () => {
    const lost = { faults: [fault('store-data-loss', 'store', 1200, 1200)] };
    expect(only(history(twoLeaderships('9', '5', 1), lost))).toEqual([]);
    // A restart that keeps the data (PostgreSQL, etcd) is no excuse unless the caller says so.
    const restarted = { faults: [fault('store-restart', 'store', 1200, 1300)] };
    expect(only(history(twoLeaderships('9', '5', 1), restarted))).toHaveLength(1);
    expect(checkHistory(history(twoLeaderships('9', '5', 1), restarted), { rules: ['token-order'], dataLossKinds: ['store-restart'] }).violations).toEqual([]);
  });
});
