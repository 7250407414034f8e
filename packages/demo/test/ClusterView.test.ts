import { describe, expect, it } from 'vitest';
import { ClusterView, median } from '../src/ClusterView.js';
import type { NodeEvent } from '@roster/cli';

const leaderLine = (id: string, leader: string, era: number, token: number): NodeEvent => ({
  ts: 0,
  id,
  event: 'leader',
  leader,
  era,
  nonce: 0,
  token: String(token),
});
const roleLine = (id: string, role: 'leader' | 'follower' | 'candidate'): NodeEvent => ({ ts: 0, id, event: 'role', role, previous: 'follower', reason: role === 'leader' ? 'confirmed' : 'test' });
const membersLine = (id: string, members: string[]): NodeEvent => ({ ts: 0, id, event: 'members', version: 1, members, added: [], removed: [] });

/** Three running nodes, n1 leading (era 1, token 10), everyone seeing everyone. */
function settledCluster(): ClusterView {
  const view = new ClusterView();
  for (const id of ['n1', 'n2', 'n3']) {
    view.add(id);
    view.hello(id, 100);
  }
  view.apply(roleLine('n1', 'leader'), 0);
  for (const id of ['n1', 'n2', 'n3']) {
    if (id !== 'n1') view.apply(roleLine(id, 'follower'), 0);
    view.apply(leaderLine(id, 'n1', 1, 10), 0);
    view.apply(membersLine(id, ['n1', 'n2', 'n3']), 0);
  }
  return view;
}

describe('the demo’s failover measurement', () => {
  it('a cluster where all follow one leader and see every node is settled', () => {
    const view = settledCluster();
    expect(view.settled).toBe(true);
    expect(view.leaderNode?.id).toBe('n1');
    expect(view.elections).toBe(1);
  });

  it('a failover lasts from the kill until the last survivor follows a new leader with a higher token', () => {
    const view = settledCluster();
    const failover = view.killed('n1', 1000)!;
    expect(failover).toMatchObject({ victim: 'n1', survivors: ['n2', 'n3'], oldToken: 10n });
    expect(view.settled).toBe(false);

    expect(view.apply(roleLine('n2', 'leader'), 2100)).toBeUndefined();
    expect(view.apply(leaderLine('n2', 'n2', 2, 20), 2100)).toBeUndefined();
    expect(view.apply(leaderLine('n3', 'n2', 2, 20), 2300)).toBe(failover);
    expect(failover.durationMs).toBe(1300);
    expect(failover.newLeader).toEqual({ id: 'n2', era: 2, token: 20n });
    expect(view.pending).toBeUndefined();
    expect(view.elections).toBe(2);
  });

  it('survivors that disagree, or follow a lower token, do not end the failover', () => {
    const view = settledCluster();
    view.killed('n1', 0);
    view.apply(leaderLine('n2', 'n2', 2, 20), 1);
    view.apply(leaderLine('n3', 'n3', 2, 19), 2);
    expect(view.pending).toBeDefined();
    view.apply(leaderLine('n3', 'n2', 2, 20), 3);
    expect(view.pending).toBeUndefined();
  });

  it('killing a follower is no failover', () => {
    const view = settledCluster();
    expect(view.killed('n2', 0)).toBeUndefined();
    expect(view.failovers).toEqual([]);
    expect(view.alive.map((n) => n.id)).toEqual(['n1', 'n3']);
  });

  it('keeps the broadcast nonce each node last reported, through ticks without one', () => {
    const view = settledCluster();
    view.tick({ id: 'n1', role: 'leader', version: 2, nonce: 0 }, 0);
    view.tick({ id: 'n2', role: 'follower', version: 2, pongRoundTripMs: 1.5, nonce: 0 }, 0);
    expect(view.leaderNode?.nonce).toBe(0);
    view.tick({ id: 'n1', role: 'leader', version: 3, nonce: 1 }, 0);
    view.tick({ id: 'n2', role: 'follower', version: 3, pongRoundTripMs: 1.5 }, 0);
    expect(view.node('n1')?.nonce).toBe(1);
    expect(view.node('n2')?.nonce).toBe(0);
    expect(view.node('n3')?.nonce).toBeUndefined();
  });

  it('records every time two alive nodes report leader at once, from the first report to the first that ends it', () => {
    const view = settledCluster();
    expect(view.overlaps).toEqual([]);
    view.tick({ id: 'n2', role: 'leader', version: 2 }, 100);
    expect(view.leaders.map((n) => n.id)).toEqual(['n1', 'n2']);
    expect(view.leaderNode).toBeUndefined();
    view.tick({ id: 'n3', role: 'leader', version: 2 }, 150);
    view.apply(roleLine('n1', 'follower'), 250);
    expect(view.overlaps).toEqual([{ ids: ['n1', 'n2', 'n3'], from: 100, to: undefined }]);
    view.tick({ id: 'n3', role: 'follower', version: 2 }, 300);
    expect(view.overlaps).toEqual([{ ids: ['n1', 'n2', 'n3'], from: 100, to: 300 }]);
    expect(view.overlapMs()).toBe(200);
    expect(view.overlapsBetween(0, 99)).toEqual([]);
    expect(view.overlapsBetween(250, 400)).toHaveLength(1);
  });

  it('a leader killed is no leader any more: its successor is no overlap', () => {
    const view = settledCluster();
    view.killed('n1', 100);
    view.apply(roleLine('n2', 'leader'), 1200);
    view.tick({ id: 'n1', role: 'leader', version: 2 }, 1210); // a late report of the dead process
    expect(view.overlaps).toEqual([]);
    expect(view.leadership).toBeUndefined(); // n2 does not follow itself yet
    view.apply(leaderLine('n2', 'n2', 2, 20), 1200);
    expect(view.leadership).toEqual({ id: 'n2', era: 2, token: 20n });
  });

  it('median', () => {
    expect(median([])).toBeUndefined();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
