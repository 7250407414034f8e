import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

/** The command line of `main.js`, parsed. */
export interface RunnerOptions {
  readonly store: string;
  /** The Redis that holds the queue and the schedule; Roster's store unless given. */
  readonly data: string;
  readonly id: string;
  readonly env: string;
  readonly jobs: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly renewDeadlineMs: number | undefined;
  readonly periodMs: number;
  readonly workMs: number;
  readonly pollMs: number;
}

export const USAGE = `usage: node dist/main.js --store redis://127.0.0.1:6379 [options]

  --store <url>              Roster's store (required)
  --data <url>               the Redis of the queue and the schedule (default: --store)
  --id <id>                  this process's id (default: a fresh UUID)
  --env <name>               Roster environment (default: dev)
  --jobs <n>                 seed job-0 … job-(n-1) when missing (default: 12)
  --interval-ms <ms>         Roster interval I (default: 1000)
  --timeout-ms <ms>          Roster timeout T (default: 5 × interval)
  --renew-deadline-ms <ms>   Roster renew deadline (default: T / 2)
  --period-ms <ms>           pause between two rounds (default: 1000)
  --work-ms <ms>             time the leader spends preparing a round (default: 200)
  --poll-ms <ms>             how often workers look for a new round (default: 250)
`;

/** A bad command line; `main` prints it with the usage and exits with status 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
}

/** Parses `argv` (without `node` and the script); `undefined` for `--help`. */
export function parseOptions(argv: readonly string[]): RunnerOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        store: { type: 'string' },
        data: { type: 'string' },
        id: { type: 'string' },
        env: { type: 'string' },
        jobs: { type: 'string' },
        'interval-ms': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'renew-deadline-ms': { type: 'string' },
        'period-ms': { type: 'string' },
        'work-ms': { type: 'string' },
        'poll-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return undefined;
  if (!values.store) throw new UsageError('--store is required, e.g. --store redis://127.0.0.1:6379');
  const intervalMs = count('--interval-ms', values['interval-ms'], 1000, 1);
  return {
    store: values.store,
    data: values.data ?? values.store,
    id: values.id ?? randomUUID().replaceAll('-', ''),
    env: values.env ?? 'dev',
    jobs: count('--jobs', values.jobs, 12, 0),
    intervalMs,
    timeoutMs: count('--timeout-ms', values['timeout-ms'], 5 * intervalMs, 1),
    renewDeadlineMs: values['renew-deadline-ms'] === undefined ? undefined : count('--renew-deadline-ms', values['renew-deadline-ms'], 0, 1),
    periodMs: count('--period-ms', values['period-ms'], 1000, 0),
    workMs: count('--work-ms', values['work-ms'], 200, 0),
    pollMs: count('--poll-ms', values['poll-ms'], 250, 1),
  };
}

function count(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${flag}: expected an integer ≥ ${min}, got ${JSON.stringify(text)}`);
  }
  return value;
}
