import { setTimeout as delay } from 'node:timers/promises';
import { CompoundKey, Namespace } from '@roster/kv-adapter';
import type { LocalRedisCluster, LocalRedisShard } from '@roster/testing';
import type { ClusterView, LeaderOverlap, TopologyChange } from './ClusterView.js';
import { seconds, type DemoDisplay } from './DemoDisplay.js';
import type { DemoRun } from './DemoRun.js';

/** The settings of {@link runClusterChanges}. */
export interface ClusterChangeSettings {
  /** The demo nodes' group and environment, whose leader key the changes aim at. */
  readonly group: string;
  readonly env: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** The run's duration in ms: the changes are due at a sixth, a third and a half of it. */
  readonly durationMs: number;
}

/** The changes, in order, and when each is due: this fraction of the run. */
export const CLUSTER_CHANGES: readonly { readonly kind: TopologyChange['kind']; readonly dueAt: number }[] = [
  { kind: 'graceful failover', dueAt: 1 / 6 },
  { kind: 'resharding', dueAt: 2 / 6 },
  { kind: 'master kill', dueAt: 3 / 6 },
];

/** How long the slot stays MIGRATING during the resharding: a few intervals. */
export function reshardHoldMs(intervalMs: number): number {
  return 3 * intervalMs;
}

/**
 * How long the nodes are watched once a change has settled: a follower that lost the leader
 * stands within T of its last good read; 4 I more for the election it would start to be seen.
 */
export function watchMs(s: { readonly intervalMs: number; readonly timeoutMs: number }): number {
  return s.timeoutMs + 4 * s.intervalMs;
}

/**
 * `--cluster`: three topology changes an operator makes to a Redis Cluster with replicas, each
 * aimed at the leader key's nonce where the leader broadcasts at the time, each from a cluster at
 * rest and with no leader kill meanwhile ({@link DemoRun.alone}):
 *
 * 1. a graceful `CLUSTER FAILOVER` of the master serving that key (its replica takes over, no write
 *    lost);
 * 2. a live resharding of that key's slot to another master, held `MIGRATING` for
 *    {@link reshardHoldMs} with its keys already moved (the old master answers `ASK`);
 * 3. the master serving that key SIGKILLed, its replica promoted by the cluster after
 *    `cluster-node-timeout`; then the killed server is restarted and rejoins as a replica.
 *
 * Each is watched for {@link watchMs} after it settled, and then judged from the demo's
 * {@link ClusterView}: whether the leader (id and era) changed, how many elections there were,
 * and whether two nodes reported leader at once. Each step's lines go to `display` (the terminal
 * and the web page's log) and its record to `view.topology`. Resolves when done, or when
 * `signal` aborts (a change under way is finished and judged first).
 */
export async function runClusterChanges(
  run: DemoRun,
  cluster: LocalRedisCluster,
  view: ClusterView,
  display: DemoDisplay,
  settings: ClusterChangeSettings,
  signal: AbortSignal,
  now: () => number,
): Promise<void> {
  const leaderKey = new CompoundKey(new Namespace(settings.group, settings.env).key('leader'));
  const start = now();
  let killed: { readonly server: LocalRedisShard; readonly by: LocalRedisShard } | undefined;
  try {
    for (const { kind, dueAt } of CLUSTER_CHANGES) {
      await delay(Math.max(0, start + dueAt * settings.durationMs - now()), undefined, { signal });
      await run.alone(
        signal,
        async () => {
          const leader = view.leaderNode!;
          const before = view.leadership!;
          const key = leaderKey.at(leader.nonce!);
          const where = `"${key}", where leader ${before.id} (era ${before.era}) broadcasts`;
          const change: TopologyChange = { kind, detail: '', at: now(), before };
          view.topology.push(change);
          const elections = view.elections;
          display.changed();
          try {
            if (kind === 'graceful failover') {
              const master = await cluster.shardFor(key);
              const [replica] = cluster.replicasOf(master);
              display.note(now(), `graceful CLUSTER FAILOVER of the Redis master ${master.address}, which serves ${where}, to its replica ${replica?.address ?? '(none)'}`);
              const f = await cluster.failover(master, 'graceful');
              change.detail = `${f.from.address} → ${f.to.address}`;
              display.note(now(), `failover done in ${seconds(f.waitedMs)}: ${f.to.address} serves "${key}" now, ${f.from.address} is its replica`);
            } else if (kind === 'resharding') {
              const slot = await cluster.slotOf(key);
              const from = await cluster.shardForSlot(slot);
              const to = cluster.shards.find((s) => s !== from && s.running)!;
              const holdMs = reshardHoldMs(settings.intervalMs);
              display.note(now(), `resharding: slot ${slot} (${where}) MIGRATING from ${from.address} to ${to.address}, held ${seconds(holdMs)} with its keys moved (${from.address} answers ASK)`);
              const m = await cluster.migrateSlot(slot, to, { holdMs });
              change.detail = `slot ${slot}: ${m.from.address} → ${m.to.address}`;
              display.note(now(), `slot ${slot} moved from ${m.from.address} to ${m.to.address} (${m.keys} ${m.keys === 1 ? 'key' : 'keys'}) in ${seconds(m.tookMs)}`);
            } else {
              const master = await cluster.shardFor(key);
              display.note(now(), `killed the Redis master ${master.address} (pid ${master.pid}) with SIGKILL: it serves ${where}`);
              const k = await cluster.killMaster(master);
              killed = { server: k.from, by: k.to };
              change.detail = `${k.from.address} killed, ${k.to.address} promoted`;
              display.note(now(), `the cluster promoted ${k.to.address}, the replica of ${k.from.address}, after ${seconds(k.waitedMs)}`);
            }
          } finally {
            await judge(change, view, display, settings, elections, signal, now);
          }
        },
        () => view.leaderNode?.nonce !== undefined && view.leadership !== undefined,
      );
    }
    if (killed && !signal.aborted) {
      await cluster.restart(killed.server);
      display.note(now(), `restarted ${killed.server.address} (pid ${killed.server.pid}): it rejoined as a replica of ${killed.by.address}`);
    }
  } catch (error) {
    if (!signal.aborted) display.note(now(), `cluster change failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Watches the nodes for {@link watchMs} (less when `signal` aborts), waits up to 5 T more for them
 * to agree on a leader, then records and says what the change did to the leadership.
 */
async function judge(
  change: TopologyChange,
  view: ClusterView,
  display: DemoDisplay,
  settings: ClusterChangeSettings,
  elections: number,
  signal: AbortSignal,
  now: () => number,
): Promise<void> {
  const quiet = { signal };
  change.settledAt = now();
  await delay(watchMs(settings), undefined, quiet).catch(() => undefined);
  const giveUpAt = now() + 5 * settings.timeoutMs;
  while (!view.settled && now() < giveUpAt && !signal.aborted) await delay(50, undefined, quiet).catch(() => undefined);
  change.doneAt = now();
  change.cutShort = signal.aborted && change.doneAt - change.settledAt < watchMs(settings);
  change.after = view.settled ? (view.leadership ?? null) : null;
  change.elections = view.elections - elections;
  change.overlaps = view.overlapsBetween(change.at, change.doneAt).map((o) => ({ ...o, ids: [...o.ids] }));
  display.note(change.doneAt, verdict(change));
  display.changed();
}

/**
 * What a change did, in one line: `graceful failover: the leader stays n3, era 2, no election; no
 * two nodes reported leader at once (2.37 s from the change to the verdict)`.
 */
export function verdict(change: TopologyChange): string {
  const { before, after } = change;
  const leader =
    after === undefined
      ? 'not judged yet'
      : after === null
        ? `the nodes did not agree on a leader again (before: ${before.id}, era ${before.era})`
        : after.id === before.id && after.era === before.era
          ? `the leader stays ${after.id}, era ${after.era}`
          : `the leader changed from ${before.id} (era ${before.era}) to ${after.id} (era ${after.era})`;
  const n = change.elections ?? 0;
  const elections = n === 0 ? 'no election' : `${n} ${n === 1 ? 'election' : 'elections'}`;
  const watched =
    change.doneAt === undefined ? '' : ` (${seconds(change.doneAt - change.at)} from the change to the verdict${change.cutShort ? ', the watch cut short by the end of the run' : ''})`;
  return `${change.kind}: ${leader}, ${elections}; ${twoLeaders(change.overlaps ?? [], change.doneAt ?? 0)}${watched}`;
}

/** `no two nodes reported leader at once`, or which did and for how long. */
export function twoLeaders(overlaps: readonly LeaderOverlap[], at: number): string {
  if (overlaps.length === 0) return 'no two nodes reported leader at once';
  const ms = overlaps.reduce((sum, o) => sum + ((o.to ?? at) - o.from), 0);
  const ids = [...new Set(overlaps.flatMap((o) => o.ids))].join(', ');
  return `TWO NODES REPORTED LEADER AT ONCE (${ids}): ${overlaps.length} ${overlaps.length === 1 ? 'time' : 'times'}, ${seconds(ms)} in all`;
}
