import type { StopReason } from '@roster/primary';
import { clockTime } from '../internal/StderrLogger.js';

/** Fields every line of `roster primary run --json` carries. */
interface PrimaryEventBase {
  /** When the contender saw it, in milliseconds since the epoch (this machine's clock). */
  readonly ts: number;
  /**
   * The id the contender holds (or seeks) the role type under at that moment. It changes
   * only when the contender starts over after a loss (without `--exit-on-loss`).
   */
  readonly id: string;
  /** The role type. */
  readonly utype: string;
}

/** The contender is connected and starts seeking; always the first line. */
export interface PrimaryStartedEvent extends PrimaryEventBase {
  readonly event: 'started';
  /** The endpoint it writes in its entry, or `null`. */
  readonly endpoint: string | null;
  /** I, in ms. */
  readonly intervalMs: number;
  /** T, in ms. */
  readonly timeoutMs: number;
}

/** The primary this contender sees in the table changed (another instance, an endpoint, or none). */
export interface PrimarySeenEvent extends PrimaryEventBase {
  readonly event: 'primary';
  /** The primary's id, or `null` when the table has none. */
  readonly primary: string | null;
  /** Where it listens, or `null` (no primary, or none published). */
  readonly endpoint: string | null;
}

/** This contender became the primary of its role type. */
export interface PrimaryActingEvent extends PrimaryEventBase {
  readonly event: 'acting';
  /** The endpoint in its entry, or `null`. */
  readonly endpoint: string | null;
  /**
   * The store time (ms) of the claim this term rests on: a fencing token, strictly greater for
   * every later term of the role type.
   */
  readonly claimedAt: number;
}

/** This contender stopped being the primary; always follows an `acting` line. */
export interface PrimaryStoppedActingEvent extends PrimaryEventBase {
  readonly event: 'stopped-acting';
  /** `superseded`, `vanished`, `deadline` or `stopped` (see docs/primary.md). */
  readonly reason: StopReason;
  /** How long it acted, in ms of its local clock. */
  readonly actedForMs: number;
}

/** The contender stopped (a signal, a closed stdout, or `--exit-on-loss`); always the last line. */
export interface PrimaryStoppedEvent extends PrimaryEventBase {
  readonly event: 'stopped';
}

/**
 * One line of `roster primary run --json` (a public contract, see docs/cli.md). New fields and
 * events may be added; none is removed or renamed.
 */
export type PrimaryEvent = PrimaryStartedEvent | PrimarySeenEvent | PrimaryActingEvent | PrimaryStoppedActingEvent | PrimaryStoppedEvent;

/** The `--json` line for `event`: one JSON object, no newline. */
export function formatJsonPrimaryEvent(event: PrimaryEvent): string {
  return JSON.stringify(event);
}

/**
 * A readable line for `event`, as `roster primary run` prints without `--json`:
 * `12:00:01.611 acting as primary of billing (claimedAt 1767225600123)`.
 */
export function formatHumanPrimaryEvent(event: PrimaryEvent): string {
  return `${clockTime(new Date(event.ts))} ${describePrimaryEvent(event)}`;
}

/** What `event` says, in words and without a time. */
export function describePrimaryEvent(event: PrimaryEvent): string {
  switch (event.event) {
    case 'started':
      return `contending for ${event.utype} as ${event.id}${at(event.endpoint)} (interval ${event.intervalMs} ms, timeout ${event.timeoutMs} ms)`;
    case 'primary':
      return event.primary === null
        ? `primary of ${event.utype}: none`
        : `primary of ${event.utype}: ${event.primary}${at(event.endpoint)}${event.primary === event.id ? ' (this instance)' : ''}`;
    case 'acting':
      return `acting as primary of ${event.utype} (claimedAt ${event.claimedAt})`;
    case 'stopped-acting':
      return `stopped acting as primary of ${event.utype}: ${event.reason}, after ${seconds(event.actedForMs)}`;
    case 'stopped':
      return 'stopped';
  }
}

function at(endpoint: string | null): string {
  return endpoint === null ? '' : ` at ${endpoint}`;
}

/** `412 ms` or `3.2 s`. */
export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
