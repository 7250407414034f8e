/**
 * The process contract every peer driver follows, the one the harness reads: one JSON line per
 * leadership change on stdout, `{"t":<ms since the epoch>,"event":"ready"|"leader"|"follower"|"stopped"}`;
 * a graceful resign on SIGTERM or SIGINT (then `stopped` and exit 0); exit when stdin closes, so
 * that a driver never outlives the bench.
 */
import { parseArgs } from 'node:util';

/** What a driver prints. */
export type DriverEvent = 'ready' | 'leader' | 'follower' | 'stopped';

/** Prints one event line. */
export function emit(event: DriverEvent): void {
  process.stdout.write(`${JSON.stringify({ t: Date.now(), event })}\n`);
}

/** Reads `--name value` options, all strings. */
export function driverArgs(names: readonly string[]): Record<string, string> {
  const { values } = parseArgs({ options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])), strict: true });
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = values[name];
    if (typeof value !== 'string') {
      process.stderr.write(`driver: missing --${name}\n`);
      process.exit(2);
    }
    out[name] = value;
  }
  return out;
}

/**
 * Runs `resign` once on SIGTERM, SIGINT or a closed stdin, then prints `stopped` and exits 0;
 * a second signal exits at once.
 */
export function onStop(resign: () => Promise<void>): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(143);
    stopping = true;
    const hardStop = setTimeout(() => process.exit(1), 5000);
    void resign()
      .catch((error: unknown) => process.stderr.write(`driver: resign failed: ${String(error)}\n`))
      .finally(() => {
        clearTimeout(hardStop);
        emit('stopped');
        process.exit(0);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}
