/**
 * The leadership measurements on a steady group: crash failover (SIGKILL the leader), stall
 * tolerance (SIGSTOP the leader for D ms), graceful resign (SIGTERM the leader). Each leaves the
 * group at its size: a node that is gone is replaced by a fresh one.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Group } from '../harness/Group.js';
import { summarize, type Summary } from '../report/stats.js';

/** Progress lines for people, on stderr. */
export type Progress = (message: string) => void;

/** Crash failovers: ms from SIGKILL of the leader until another node reports leading. */
export interface FailoverResult {
  readonly samplesMs: readonly number[];
  /** Kills after which no node reported leading within the limit. */
  readonly missed: number;
  readonly summary: Summary;
}

/** Kills the leader `kills` times. */
export async function measureFailover(group: Group, kills: number, progress: Progress): Promise<FailoverResult> {
  const samples: number[] = [];
  let missed = 0;
  const limit = 10 * group.system.timeoutMs + 10_000;
  for (let k = 0; k < kills; k++) {
    const leader = await group.waitSteady(60_000);
    await delay(Math.random() * 200);
    const from = group.log.length;
    const killedAt = Date.now();
    await group.crash(leader);
    const next = await group.waitLine(from, (l) => l.kind === 'leader' && l.node !== leader.name && l.t >= killedAt, limit);
    if (next) samples.push(next.t - killedAt);
    else missed++;
    progress(`  failover ${k + 1}/${kills}: ${next ? `${next.t - killedAt} ms` : 'no new leader'}`);
    group.spawn();
  }
  return { samplesMs: samples, missed, summary: summarize(samples) };
}

/** One pause of the leader. */
export interface StallTry {
  readonly pauseMs: number;
  /** Measured SIGSTOP→SIGCONT. */
  readonly actualMs: number;
  /** Another node reported leading. */
  readonly moved: boolean;
  /** The paused leader reported that it no longer leads (it may have led again after). */
  readonly leaderSteppedDown: boolean;
  /**
   * Some node's reported role changed: another node led, the paused leader reported that it no
   * longer leads (for Roster, a lapsed lease shown as `candidate`: its `whileLeader` work was
   * aborted), or a follower stood for election. A try without any is one the leader's work rides out.
   */
  readonly disrupted?: boolean;
}

/** Stall tolerance on a grid. */
export interface StallResult {
  readonly gridMs: number;
  readonly triesPerStep: number;
  readonly tries: readonly StallTry[];
  /** The longest pause that, with every shorter pause on the grid, never moved leadership (0: even the first step did). */
  readonly toleranceMs: number;
  /** True when no step moved leadership up to the grid's end: the tolerance is at least that. */
  readonly censored: boolean;
  /**
   * The disruption-free pause: the longest pause that, with every shorter pause on the grid, changed
   * no node's reported role in any try (see {@link StallTry.disrupted}); 0 when even the first step did.
   * At most the tolerance (a pause that moves leadership disrupts).
   */
  readonly disruptionFreeMs?: number;
}

/** Options of {@link measureStall}. */
export interface StallOptions {
  readonly gridMs: number;
  readonly tries: number;
  /** The longest pause tried. */
  readonly maxMs: number;
  /** The first pause tried. @defaultValue gridMs */
  readonly startMs?: number;
}

/**
 * Pauses the leader for `startMs`, `startMs + gridMs`, … with `tries` tries per step, until a step
 * moves leadership in any try (or `maxMs`). Each try waits for a steady group, waits a random
 * fraction of a second (so that pauses fall at every phase of the renewal cycle), pauses, and
 * watches for `settleMs` after the resume.
 */
export async function measureStall(group: Group, options: StallOptions, progress: Progress): Promise<StallResult> {
  const tries: StallTry[] = [];
  let tolerance = 0;
  let censored = true;
  let disruptionFree = 0;
  let disruptedYet = false;
  for (let pause = options.startMs ?? options.gridMs; pause <= options.maxMs; pause += options.gridMs) {
    let movedAny = false;
    let disruptedAny = false;
    const marks: string[] = [];
    for (let k = 0; k < options.tries; k++) {
      const leader = await group.waitSteady(60_000);
      await delay(Math.random() * 300);
      const from = group.log.length;
      const { stoppedAt, resumedAt } = await group.pause(leader, pause);
      await delay(group.system.settleMs);
      const moved = group.since(from, (l) => l.kind === 'leader' && l.node !== leader.name && l.t >= stoppedAt).length > 0;
      const steppedDown = group.since(from, (l) => l.kind === 'follower' && l.node === leader.name).length > 0;
      const stood = group.since(from, (l) => l.kind === 'stood' && l.node !== leader.name && l.t >= stoppedAt).length > 0;
      const disrupted = moved || steppedDown || stood;
      tries.push({ pauseMs: pause, actualMs: resumedAt - stoppedAt, moved, leaderSteppedDown: steppedDown, disrupted });
      marks.push(moved ? 'moved' : steppedDown ? 'blip' : stood ? 'stood' : 'kept');
      movedAny ||= moved;
      disruptedAny ||= disrupted;
    }
    disruptedYet ||= disruptedAny;
    if (!disruptedYet) disruptionFree = pause;
    progress(`  stall ${pause} ms: ${marks.join(' ')}`);
    if (movedAny) {
      censored = false;
      break;
    }
    tolerance = pause;
  }
  return { gridMs: options.gridMs, triesPerStep: options.tries, tries, toleranceMs: tolerance, censored, disruptionFreeMs: disruptionFree };
}

/** Graceful resigns: ms from SIGTERM of the leader until another node reports leading. */
export async function measureResign(group: Group, count: number, progress: Progress): Promise<FailoverResult> {
  const samples: number[] = [];
  let missed = 0;
  const limit = 10 * group.system.timeoutMs + 10_000;
  for (let k = 0; k < count; k++) {
    const leader = await group.waitSteady(60_000);
    await delay(Math.random() * 200);
    const from = group.log.length;
    const stoppedAt = Date.now();
    const exited = group.stop(leader);
    const next = await group.waitLine(from, (l) => l.kind === 'leader' && l.node !== leader.name && l.t >= stoppedAt, limit);
    await exited;
    if (next) samples.push(next.t - stoppedAt);
    else missed++;
    progress(`  resign ${k + 1}/${count}: ${next ? `${next.t - stoppedAt} ms` : 'no new leader'}`);
    group.spawn();
  }
  return { samplesMs: samples, missed, summary: summarize(samples) };
}
