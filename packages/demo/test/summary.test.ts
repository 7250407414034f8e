import { describe, expect, it } from 'vitest';
import { verdict } from '../src/ClusterChanges.js';
import type { TopologyChange } from '../src/ClusterView.js';
import { formatSummary, type DemoSummary } from '../src/summary.js';

const before = { id: 'n3', era: 2, token: 30n };

describe('what the demo says of a Redis Cluster change', () => {
  it('the leader unchanged, no election, no overlap', () => {
    const change: TopologyChange = { kind: 'graceful failover', detail: 'a → b', at: 1000, before, after: before, elections: 0, overlaps: [], settledAt: 1500, doneAt: 3300 };
    expect(verdict(change)).toBe('graceful failover: the leader stays n3, era 2, no election; no two nodes reported leader at once (2.30 s from the change to the verdict)');
  });

  it('another leader, an election, two nodes reporting leader', () => {
    const change: TopologyChange = {
      kind: 'master kill',
      detail: '',
      at: 0,
      before,
      after: { id: 'n4', era: 3, token: 40n },
      elections: 1,
      overlaps: [{ ids: ['n3', 'n4'], from: 100, to: 220 }],
      doneAt: 2000,
    };
    expect(verdict(change)).toBe(
      'master kill: the leader changed from n3 (era 2) to n4 (era 3), 1 election; TWO NODES REPORTED LEADER AT ONCE (n3, n4): 1 time, 0.12 s in all (2.00 s from the change to the verdict)',
    );
  });

  it('nodes that did not agree again', () => {
    expect(verdict({ kind: 'resharding', detail: '', at: 0, before, after: null, elections: 0, overlaps: [], doneAt: 10 })).toMatch(/^resharding: the nodes did not agree on a leader again \(before: n3, era 2\), no election;/);
  });
});

describe('the summary', () => {
  const base: DemoSummary = {
    durationMs: 20_000,
    store: 'x',
    nodes: 5,
    started: 7,
    elections: 3,
    kills: 2,
    failoversMs: [1200, 1300],
    timeoutMs: 1000,
    intervalMs: 200,
    twoLeaders: { times: 0, ms: 0 },
    topology: [],
  };

  it('says whether two nodes ever reported leader at once', () => {
    expect(formatSummary(base)).toContain('\n  two nodes reporting leader at once: never\n');
    expect(formatSummary({ ...base, twoLeaders: { times: 2, ms: 150 } })).toContain('\n  two nodes reporting leader at once: 2 times, 0.15 s in all\n');
    expect(formatSummary(base)).not.toContain('cluster changes');
  });

  it('with --cluster, through how many changes the leader stayed', () => {
    const kept: TopologyChange = { kind: 'graceful failover', detail: '', at: 0, before, after: before, elections: 0, overlaps: [] };
    const lost: TopologyChange = { kind: 'master kill', detail: '', at: 0, before, after: { id: 'n4', era: 3, token: 40n }, elections: 1, overlaps: [] };
    expect(formatSummary({ ...base, topology: [kept, { ...kept, kind: 'resharding' }, lost] })).toContain(
      '\n  cluster changes: graceful failover, resharding, master kill: the leader unchanged through 2 of 3\n',
    );
  });
});
