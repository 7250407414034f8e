/**
 * Join and leave propagation, for systems whose nodes report member lists: the time until every
 * other node lists a new node, and until every other node drops one that stopped gracefully.
 */
import type { Group } from '../harness/Group.js';
import { summarize, type Summary } from '../report/stats.js';
import type { Progress } from './leadership.js';

/** Join and leave times. */
export interface MembershipResult {
  /** From the new node's first line (store connected) until the last other node lists it. */
  readonly joinMs: readonly number[];
  /** The same, from the spawn of its process (adds the process's start-up). */
  readonly joinFromSpawnMs: readonly number[];
  /** From SIGTERM of a follower until the last other node drops it. */
  readonly leaveMs: readonly number[];
  readonly join: Summary;
  readonly joinFromSpawn: Summary;
  readonly leave: Summary;
}

/** Adds a node then stops a follower, `tries` times. */
export async function measureMembership(group: Group, tries: number, progress: Progress): Promise<MembershipResult> {
  const join: number[] = [];
  const fromSpawn: number[] = [];
  const leave: number[] = [];
  const limit = 20 * group.system.timeoutMs + 10_000;
  for (let k = 0; k < tries; k++) {
    await group.waitSteady(60_000);
    const others = group.live().map((n) => n.name);
    const from = group.log.length;
    const added = group.spawn();
    const ready = await group.waitLine(from, (l) => l.node === added.name && l.kind === 'ready', limit);
    const seenBy = new Map<string, number>();
    const listed = await group.waitLine(
      from,
      (l) => {
        if (l.kind === 'members' && others.includes(l.node) && l.members?.includes(added.name) && !seenBy.has(l.node)) seenBy.set(l.node, l.t);
        return seenBy.size === others.length;
      },
      limit,
    );
    if (ready && listed) {
      const last = Math.max(...seenBy.values());
      join.push(last - ready.t);
      fromSpawn.push(last - added.spawnedAt);
    }

    await group.waitSteady(60_000);
    const leader = group.leader()!;
    const leaving = group.live().find((n) => n !== leader && n !== added) ?? group.live().find((n) => n !== leader)!;
    const stayers = group.live().filter((n) => n !== leaving).map((n) => n.name);
    const from2 = group.log.length;
    const stoppedAt = Date.now();
    const dropped = new Map<string, number>();
    const exited = group.stop(leaving);
    const gone = await group.waitLine(
      from2,
      (l) => {
        if (l.kind === 'members' && stayers.includes(l.node) && l.members && !l.members.includes(leaving.name) && !dropped.has(l.node)) dropped.set(l.node, l.t);
        return dropped.size === stayers.length;
      },
      limit,
    );
    await exited;
    if (gone) leave.push(Math.max(...dropped.values()) - stoppedAt);
    progress(`  join ${join.at(-1) ?? '—'} ms (from spawn ${fromSpawn.at(-1) ?? '—'}), leave ${leave.at(-1) ?? '—'} ms`);
  }
  return { joinMs: join, joinFromSpawnMs: fromSpawn, leaveMs: leave, join: summarize(join), joinFromSpawn: summarize(fromSpawn), leave: summarize(leave) };
}
