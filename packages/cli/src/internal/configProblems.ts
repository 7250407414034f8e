import { ConfigError } from '@roster/kv-adapter';
import type { FlagMap, ParsedFlags } from './flags.js';
import { problem, untagged } from './problems.js';

/**
 * The defaults of a Roster node's timing, as `createNode()` applies them (I = 1 s, T = 5I,
 * R = ⌊T/2⌋). The CLI shows them in `--help` and uses them to explain a derived value that breaks
 * a rule; test/configProblems.test.ts checks them against `checkNodeOptions`.
 */
export const NODE_TIMING = Object.freeze({
  intervalMs: 1000,
  timeoutOf: (intervalMs: number): number => 5 * intervalMs,
  renewDeadlineOf: (timeoutMs: number): number => Math.floor(timeoutMs / 2),
});

/** One duration of a node's (or a contender's) timing as the command runs it. */
export interface TimingValue {
  /** Its value in milliseconds, given or derived. */
  readonly value: number;
  /** The flag that sets it in this command, if there is one (`--renew-deadline`). */
  readonly flag?: string;
  /** True when the user gave it; false for a default. */
  readonly given: boolean;
}

/**
 * The timing a command configures: I and T, and a node's renew deadline R (absent for a primary
 * contender, which has none). Rules: T > 2I, and I < R < T − I.
 */
export interface Timing {
  readonly interval: TimingValue;
  readonly timeout: TimingValue;
  readonly renewDeadline?: TimingValue;
}

/**
 * A node's timing from its flags: I, T and R as given, else their defaults ({@link NODE_TIMING}).
 * `keys` names the flags of the table (a command without a renew-deadline flag leaves it out).
 */
export function nodeTiming<F extends FlagMap>(
  parsed: ParsedFlags<F>,
  keys: { readonly interval: keyof F; readonly timeout: keyof F; readonly renewDeadline?: keyof F },
): Timing {
  const number = (key: keyof F | undefined): number | undefined => (key === undefined ? undefined : (parsed.values[key] as number | undefined));
  const interval = number(keys.interval) ?? NODE_TIMING.intervalMs;
  const timeout = number(keys.timeout) ?? NODE_TIMING.timeoutOf(interval);
  const renewDeadline = number(keys.renewDeadline) ?? NODE_TIMING.renewDeadlineOf(timeout);
  const value = (key: keyof F | undefined, ms: number): TimingValue => ({
    value: ms,
    ...(key !== undefined && { flag: parsed.name(key) }),
    given: key !== undefined && parsed.given(key),
  });
  return { interval: value(keys.interval, interval), timeout: value(keys.timeout, timeout), renewDeadline: value(keys.renewDeadline, renewDeadline) };
}

/**
 * A `ConfigError` of the library as the one line a user can act on, in the words of the flags they
 * have (anything else is returned unchanged):
 *
 * - a timing rule (T > 2I, I < R < T − I) broken: what the flags given leave, and which to change,
 *   also when the value at fault was derived (`--timeout 2001 with --interval 1000 leaves no valid
 *   default --renew-deadline (…): raise --timeout to at least 2002`);
 * - a field a flag sets, given by the user: `invalid --group: <the library's message>`;
 * - a field a flag sets, left at its default: `invalid default --timeout: <the library's message>`;
 * - any other field: `invalid configuration: <the library's message>`.
 *
 * The library's message is shown as it wrote it, without its `config: ` tag.
 */
export function configProblem<F extends FlagMap>(parsed: ParsedFlags<F>, error: unknown, timing?: Timing): unknown {
  if (!ConfigError.is(error)) return error;
  const command = parsed.command;
  const explained = timing && timingProblem(error.field, timing);
  if (explained !== undefined) return problem(command, explained, { cause: error });
  const detail = untagged(error, 'config: ');
  const key = parsed.keyOfField(error.field);
  if (key === undefined) return problem(command, 'invalid configuration', { detail, cause: error });
  return problem(command, `invalid ${parsed.given(key) ? parsed.label(key) : `default ${parsed.name(key)}`}`, { detail, cause: error });
}

/** What is wrong with the timing, for `field`, in the flags' words; `undefined` when no rule of it is broken. */
export function timingProblem(field: string, timing: Timing): string | undefined {
  const { interval, timeout, renewDeadline } = timing;
  const I = interval.value;
  const T = timeout.value;
  const iName = interval.flag ?? 'the interval';
  const tName = timeout.flag ?? 'the timeout';
  const show = (v: TimingValue, name: string): string => `${v.given ? '' : 'the default '}${v.flag ?? name} ${v.value}`;
  if (field === 'timeoutMs' && T <= 2 * I) {
    // The smallest T, and the largest I, that meet every rule with R as given (or derived from T).
    const R = renewDeadline?.given === true ? renewDeadline.value : undefined;
    const minT = R !== undefined ? Math.max(2 * I + 1, R + I + 1) : renewDeadline === undefined ? 2 * I + 1 : 2 * I + 2;
    const maxI = R !== undefined ? Math.min(R - 1, T - R - 1, Math.ceil(T / 2) - 1) : renewDeadline === undefined ? Math.ceil(T / 2) - 1 : Math.floor(T / 2) - 1;
    const lower = interval.flag === undefined || maxI < 1 ? '' : ` or ${iName} to at most ${maxI}`;
    return `${show(timeout, 'the timeout')} is not more than twice ${show(interval, 'the interval')} (2 × ${I} = ${2 * I}): set ${tName} to at least ${minT}${lower}`;
  }
  if (field === 'renewDeadlineMs' && renewDeadline !== undefined) {
    const R = renewDeadline.value;
    if (R > I && R < T - I) return undefined;
    const lo = I + 1;
    const hi = T - I - 1;
    const bounds = `more than ${iName} ${I} and less than ${tName} − ${iName} = ${T - I}`;
    // No integer R fits below T = 2I + 2; from there, ⌊T/2⌋ does.
    const raise = `raise ${tName} to at least ${2 * I + 2}`;
    const rName = renewDeadline.flag;
    if (renewDeadline.given) return `${rName ?? 'the renew deadline'} ${R} must be ${bounds}: ${lo <= hi ? `set it between ${lo} and ${hi}` : `no value is, so ${raise}`}`;
    const what = rName === undefined ? 'renew deadline' : `default ${rName}`;
    const then = lo <= hi && rName !== undefined ? `set ${rName} between ${lo} and ${hi}, or ${raise}` : raise;
    return `${show(timeout, 'the timeout')} with ${show(interval, 'the interval')} leaves no valid ${what} (${tName} / 2 = ${R} must be ${bounds}): ${then}`;
  }
  return undefined;
}
