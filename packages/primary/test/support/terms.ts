import type { Clock } from '@roster/kv-adapter';
import type { PrimaryContender, StopReason } from '../../src/index.js';

/** One term as primary, in store time (the base clock's wall time). */
export interface Term {
  readonly contender: number;
  readonly id: string;
  readonly utype: string;
  readonly start: number;
  readonly claimedAt: number;
  end: number | undefined;
  reason: StopReason | undefined;
}

/** Records every term of `contenders` as it starts and ends, timed on `storeClock`. */
export function recordTerms(contenders: readonly PrimaryContender[], storeClock: Clock): Term[] {
  const terms: Term[] = [];
  contenders.forEach((contender, index) => {
    let open: Term | undefined;
    contender.on('startedActing', ({ id, utype, claimedAt }) => {
      open = { contender: index, id, utype, start: storeClock.wallTime(), claimedAt, end: undefined, reason: undefined };
      terms.push(open);
    });
    contender.on('stoppedActing', ({ reason }) => {
      if (open) {
        open.end = storeClock.wallTime();
        open.reason = reason;
      }
      open = undefined;
    });
  });
  return terms;
}

/** The longest time two terms of different instances of one type overlapped (0 when never). */
export function maxOverlap(terms: readonly Term[], until: number): number {
  let worst = 0;
  for (let i = 0; i < terms.length; i++) {
    for (let j = i + 1; j < terms.length; j++) {
      const a = terms[i]!;
      const b = terms[j]!;
      if (a.utype !== b.utype || a.id === b.id) continue;
      const overlap = Math.min(a.end ?? until, b.end ?? until) - Math.max(a.start, b.start);
      worst = Math.max(worst, overlap);
    }
  }
  return worst;
}

/** The instances acting as primary of `utype` right now. */
export function acting(contenders: readonly PrimaryContender[], utype: string): PrimaryContender[] {
  return contenders.filter((c) => c.utype === utype && c.isActing);
}

/** True when the terms of each type, in the order they started, have strictly increasing `claimedAt`. */
export function claimsIncrease(terms: readonly Term[]): boolean {
  const last = new Map<string, number>();
  for (const term of [...terms].sort((a, b) => a.start - b.start)) {
    if (term.claimedAt <= (last.get(term.utype) ?? -Infinity)) return false;
    last.set(term.utype, term.claimedAt);
  }
  return true;
}
