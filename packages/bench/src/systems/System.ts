/** One leader-election system as the harness drives it: how to start a node, how to read its lines. */

/** One line of a node, in the harness's terms. */
export interface NodeLine {
  /** When the node saw it, in ms since the epoch (the node's own reading of this machine's clock). */
  readonly t: number;
  /**
   * `follower`: the node no longer leads (for Roster, a leader whose lease lapsed is shown as
   * `candidate`: it counts here too); `stood`: a follower stood for election (Roster reports it,
   * the peers' drivers do not).
   */
  readonly kind: 'ready' | 'leader' | 'follower' | 'stood' | 'members' | 'stopped';
  /** With `members`: every member id the node lists. */
  readonly members?: readonly string[];
}

/** A system under test, bound to its store and timing. */
export interface System {
  /** A short stable name, e.g. `roster-100-500`. */
  readonly name: string;
  /** For tables, e.g. `Roster I=100/T=500`. */
  readonly label: string;
  /** The timing it runs with, for people, e.g. `TTL 500 ms, retry 100 ms`. */
  readonly timing: string;
  /** The time after which a silent leader must be replaced by design (T, or the TTL). */
  readonly timeoutMs: number;
  /** How long after a leader pause a failover it caused can still show up. */
  readonly settleMs: number;
  /** Whether its nodes report member lists (join and leave propagation). */
  readonly reportsMembers: boolean;
  /** The command that runs node `name`. */
  command(name: string): { readonly file: string; readonly args: readonly string[] };
  /** Reads one stdout line of a node; `undefined` for lines that do not matter. */
  parse(line: string): NodeLine | undefined;
}

/** Parses a JSON object line, or `undefined`. */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
