import { afterEach, describe, expect, it } from 'vitest';
import { failovers, processesMarked, startDemo, stopDemos } from './support/demo.js';
import { until } from './support/rosterNode.js';

afterEach(stopDemos);

/** What the demo's /cluster.json says, as far as this test reads it. */
interface Snapshot {
  readonly leader: { readonly id: string; readonly era: number; readonly nonce: number | null } | null;
  readonly leadersNow: readonly string[];
  readonly twoLeaders: { readonly times: number; readonly ms: number };
  readonly topology: readonly {
    readonly kind: string;
    readonly before: { readonly id: string; readonly era: number };
    readonly after: { readonly id: string; readonly era: number } | null;
    readonly judged: boolean;
    readonly elections: number | null;
    readonly twoLeaders: number | null;
  }[];
}

const ADDRESS = String.raw`127\.0\.0\.1:\d+`;
const KEY = String.raw`"roster\/demo\/demo\/leader (\d+)"`;

/** The index of the first line of `lines` matching `pattern` at or after `from`; -1 when none. */
function lineOf(lines: readonly string[], pattern: RegExp, from = 0): number {
  const i = lines.slice(from).findIndex((line) => pattern.test(line));
  return i < 0 ? -1 : from + i;
}

describe('the demo in cluster mode', () => {
  it(
    '--cluster: on a local Redis Cluster of 3 masters with a replica each, a graceful failover of the leader key’s master, a live resharding of its slot and a master SIGKILLed ' +
      '(its replica promoted) leave the leader and its era unchanged with no election, never two nodes report leader, nodes still join and fail over, nothing is left behind',
    async () => {
      const run = startDemo('--cluster', '--duration', '18', '--kill-every', '4');
      // The web page's JSON, polled while the demo runs: how many nodes report leader at each poll,
      // and the topology changes with what the demo judged of each.
      const snapshots: Snapshot[] = [];
      let ended = false;
      const polling = (async () => {
        while (!ended) {
          const url = /watch every node live at (http:\/\/\S+)/.exec(run.output)?.[1];
          if (url) {
            try {
              snapshots.push((await (await fetch(new URL('cluster.json', url))).json()) as Snapshot);
            } catch {
              // Not serving yet, or any more.
            }
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const code = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 150_000))]);
      ended = true;
      await polling;
      expect(code, run.output).toBe(0);
      const out = run.output;
      const lines = out.split('\n');
      expect(out).toMatch(new RegExp(`roster demo: store: a Redis Cluster of 3 masters with a replica each \\(.*redis-server\\) at ${ADDRESS}(,${ADDRESS}){5}\\n`));
      expect(out).not.toMatch(/exited unexpectedly|cluster change failed|two nodes report leader at once/);

      // 1. The graceful failover of the master serving the leader's nonce: its replica serves the
      // key now, and the leader (id and era) is the same after it, with no election.
      const failover = new RegExp(`graceful CLUSTER FAILOVER of the Redis master (${ADDRESS}), which serves ${KEY}, where leader (n\\d+) \\(era (\\d+)\\) broadcasts, to its replica (${ADDRESS})`).exec(out);
      expect(failover, out).not.toBeNull();
      const [, oldMaster, , failoverLeader, failoverEra, replica] = failover!;
      expect(out).toMatch(new RegExp(`failover done in \\d+\\.\\d\\d s: ${replica} serves .* now, ${oldMaster} is its replica`));
      expect(out).toContain(`graceful failover: the leader stays ${failoverLeader}, era ${failoverEra}, no election; no two nodes reported leader at once`);

      // 2. The live resharding of the leader key's slot to another master, held MIGRATING.
      const reshard = new RegExp(`resharding: slot (\\d+) \\(${KEY}, where leader (n\\d+) \\(era (\\d+)\\) broadcasts\\) MIGRATING from (${ADDRESS}) to (${ADDRESS}), held 0\\.60 s`).exec(out);
      expect(reshard, out).not.toBeNull();
      const [, slot, , reshardLeader, reshardEra, from, to] = reshard!;
      expect(from).not.toBe(to);
      expect(out).toMatch(new RegExp(`slot ${slot} moved from ${from} to ${to} \\(\\d+ keys?\\) in \\d+\\.\\d\\d s`));
      expect(out).toContain(`resharding: the leader stays ${reshardLeader}, era ${reshardEra}, no election; no two nodes reported leader at once`);

      // 3. The master serving the leader's nonce SIGKILLed: the cluster promotes its replica, the
      // leader goes on at another nonce (no election), and the killed server rejoins as a replica.
      const kill = new RegExp(`killed the Redis master (${ADDRESS}) \\(pid \\d+\\) with SIGKILL: it serves ${KEY}, where leader (n\\d+) \\(era (\\d+)\\) broadcasts`).exec(out);
      expect(kill, out).not.toBeNull();
      const [, killed, nonce, killLeader, killEra] = kill!;
      const promoted = new RegExp(`the cluster promoted (${ADDRESS}), the replica of ${killed}, after \\d+\\.\\d\\d s`).exec(out);
      expect(promoted, out).not.toBeNull();
      expect(out).toMatch(new RegExp(`${killLeader} still leads; its broadcast moved from nonce ${nonce} to nonce \\d+`));
      expect(out).toContain(`master kill: the leader stays ${killLeader}, era ${killEra}, no election; no two nodes reported leader at once`);
      expect(out).toContain(`restarted ${killed} (pid`);
      expect(out).toContain(`it rejoined as a replica of ${promoted![1]}`);

      // No leader kill, and no failover, from the start of a change to its verdict: the verdict is the change's own.
      for (const [start, verdict] of [
        [/graceful CLUSTER FAILOVER/, /graceful failover: the leader/],
        [/resharding: slot/, /resharding: the leader/],
        [/killed the Redis master/, /master kill: the leader/],
      ] as const) {
        const i = lineOf(lines, start);
        const j = lineOf(lines, verdict, i);
        expect(j, out).toBeGreaterThan(i);
        // (A lease that lapses while the shard is unreachable and holds again, `revalidated`, is no election.)
        expect(lines.slice(i, j).filter((line) => /killed the leader|failover \d|role .*→ leader \((?!revalidated)/.test(line)), out).toEqual([]);
      }

      // The web page said the same: at no poll did two nodes report leader, and every change was
      // judged with the leader and its era unchanged, no election and no overlap.
      expect(snapshots.length, out).toBeGreaterThan(20);
      expect(snapshots.filter((s) => s.leadersNow.length > 1), out).toEqual([]);
      const last = snapshots.reduce((a, b) => (b.topology.filter((c) => c.judged).length >= a.topology.filter((c) => c.judged).length ? b : a));
      expect(last.topology.map((c) => c.kind)).toEqual(['graceful failover', 'resharding', 'master kill']);
      for (const c of last.topology) {
        expect(c, JSON.stringify(last.topology)).toMatchObject({ judged: true, after: c.before, elections: 0, twoLeaders: 0 });
      }
      expect(last.twoLeaders).toEqual({ times: 0, ms: 0 });
      expect(out).toMatch(/^ {2}cluster changes: graceful failover, resharding, master kill: the leader unchanged through 3 of 3$/m);
      expect(out).toMatch(/^ {2}two nodes reporting leader at once: never$/m);

      // The group carries on through and after the changes: a node started after the first one is
      // admitted (seen as a member), and every leader kill is followed by a measured failover.
      const later = lines.slice(lineOf(lines, /graceful CLUSTER FAILOVER/));
      const started = later.map((line) => /started (n\d+)/.exec(line)?.[1]).find((id) => id !== undefined);
      expect(started, out).toBeDefined();
      expect(later.some((line) => new RegExp(`sees v\\d+ \\[[^\\]]*\\b${started}\\b`).test(line)), out).toBe(true);
      expect(later.some((line) => /failover \d+\.\d\d s .*every survivor follows n\d+/.test(line)), out).toBe(true);
      const f = failovers(out);
      expect(f.kills, out).toBeGreaterThanOrEqual(1);
      expect(f.measured, out).toBe(f.kills);
      expect(f.max!).toBeLessThan(15);
      await until(() => processesMarked(run.mark).length === 0, 5000, () => `left behind: ${processesMarked(run.mark).join(', ')}`);
    },
  );
});
