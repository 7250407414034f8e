import { describe, expect, it } from 'vitest';
import { buildSchedule, CUT_FAULTS, FAULT_KINDS, LINK_FAULTS, PROCESS_FAULTS, recoveryGapMs, warmupMs, type ScheduleOptions } from '../../src/nemesis/Schedule.js';

const BASE: ScheduleOptions = { seed: 7, durationMs: 120_000, intervalMs: 100, timeoutMs: 500, kinds: [...LINK_FAULTS, ...PROCESS_FAULTS] };

describe('the nemesis schedule', () => {
  it('is the same for the same seed, and differs for another', () => {
    expect(buildSchedule(BASE)).toEqual(buildSchedule({ ...BASE }));
    expect(buildSchedule({ ...BASE, seed: 8 })).not.toEqual(buildSchedule(BASE));
  });

  it('holds one fault at a time, after the warm-up, each followed by the recovery gap, all within the run', () => {
    const faults = buildSchedule(BASE);
    expect(faults[0]!.at).toBe(warmupMs(BASE));
    for (let i = 1; i < faults.length; i++) {
      const before = faults[i - 1]!;
      expect(faults[i]!.at - (before.at + before.durationMs)).toBeGreaterThanOrEqual(recoveryGapMs(BASE));
    }
    const last = faults.at(-1)!;
    expect(last.at + last.durationMs + recoveryGapMs(BASE)).toBeLessThanOrEqual(BASE.durationMs);
  });

  it('draws every allowed kind once before any repeats', () => {
    const faults = buildSchedule({ ...BASE, kinds: CUT_FAULTS });
    expect(new Set(faults.slice(0, CUT_FAULTS.length).map((f) => f.kind))).toEqual(new Set(CUT_FAULTS));
    expect(faults.every((f) => (CUT_FAULTS as readonly string[]).includes(f.kind))).toBe(true);
  });

  it('cuts a leader for longer than T + 2I, so that another must take over while it is cut', () => {
    for (const f of buildSchedule({ ...BASE, kinds: ['cut-silent', 'cut-reset', 'drop-replies'] })) {
      expect(f.durationMs).toBeGreaterThanOrEqual(BASE.timeoutMs + 2 * BASE.intervalMs);
    }
  });

  it('keeps the added latency, both ways, within a tenth of I (a fifth of the operation deadline I/2)', () => {
    for (const f of buildSchedule({ ...BASE, kinds: ['latency'] })) expect(2 * f.delayMs!).toBeLessThanOrEqual(BASE.intervalMs / 10);
  });

  it('aims at the leader as often as leaderShare says, and store faults at the store', () => {
    expect(buildSchedule({ ...BASE, leaderShare: 1 }).every((f) => f.target === 'leader')).toBe(true);
    expect(buildSchedule({ ...BASE, leaderShare: 0 }).every((f) => f.target === 'follower')).toBe(true);
    const store = buildSchedule({ ...BASE, kinds: ['store-kill', 'store-freeze', 'store-restart'] });
    expect(store.length).toBeGreaterThan(0);
    expect(store.every((f) => f.target === 'store')).toBe(true);
  });

  it('plans nothing when the run is shorter than the warm-up and one fault', () => {
    expect(buildSchedule({ ...BASE, durationMs: 2000 })).toEqual([]);
  });

  it('knows every kind the checker names', () => {
    expect(FAULT_KINDS).toEqual(expect.arrayContaining(['cut-silent', 'cut-reset', 'drop-replies', 'latency', 'flap', 'kill', 'pause', 'term', 'store-kill', 'store-freeze', 'store-restart']));
  });
});
