import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

/** The command line of `main.js`, parsed. */
export interface ServiceOptions {
  /** Roster's store, which also holds the service's digest. */
  readonly store: string;
  readonly id: string;
  readonly env: string;
  /** The HTTP port (0: any free port, printed in the `listening` line). */
  readonly port: number;
  readonly host: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Pause between two digests of the leader's work. */
  readonly periodMs: number;
}

export const USAGE = `usage: node dist/main.js --store redis://127.0.0.1:6379 [options]

  --store <url>          Roster's store, also the Redis of the digest (required)
  --id <id>              this process's id (default: a fresh UUID)
  --env <name>           Roster environment (default: dev)
  --port <port>          the HTTP port; 0 picks a free one (default: 8080)
  --host <address>       the address to listen on (default: 127.0.0.1)
  --interval-ms <ms>     Roster interval I (default: 1000)
  --timeout-ms <ms>      Roster timeout T (default: 5 × interval)
  --period-ms <ms>       pause between two digests of the leader (default: 1000)

  GET /metrics, /healthz, /readyz   Prometheus metrics and the probes (@roster/http)
  GET /                             this process's view, as JSON
  POST /resign                      the leader gives its work to another process
`;

/** A bad command line; `main` prints it with the usage and exits with status 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
}

/** Parses `argv` (without `node` and the script); `undefined` for `--help`. */
export function parseOptions(argv: readonly string[]): ServiceOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        store: { type: 'string' },
        id: { type: 'string' },
        env: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'interval-ms': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'period-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return undefined;
  if (!values.store) throw new UsageError('--store is required, e.g. --store redis://127.0.0.1:6379');
  const intervalMs = count('--interval-ms', values['interval-ms'], 1000, 1);
  const port = count('--port', values.port, 8080, 0);
  if (port > 65_535) throw new UsageError(`--port: expected a port from 0 to 65535, got ${port}`);
  return {
    store: values.store,
    id: values.id ?? randomUUID().replaceAll('-', ''),
    env: values.env ?? 'dev',
    port,
    host: values.host ?? '127.0.0.1',
    intervalMs,
    timeoutMs: count('--timeout-ms', values['timeout-ms'], 5 * intervalMs, 1),
    periodMs: count('--period-ms', values['period-ms'], 1000, 1),
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
