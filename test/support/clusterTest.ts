/**
 * `cluster-test` processes for tests: spawn the built bin, read what it prints, signal it, and kill
 * whatever is left with {@link killAll} (call it in `afterEach`/`afterAll`, so that a failing test
 * leaves no process behind).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `cluster-test` bin of `@roster/cli` (`pnpm build` first). */
export const CLUSTER_TEST_BIN = fileURLToPath(new URL('../../packages/cli/dist/bin/cluster-test.js', import.meta.url));

/** One re-balance block as cluster-test prints it. */
export interface PrintedBalance {
  readonly index: number;
  readonly threads: number;
  readonly total: number;
}

const BLOCK = /cluster-test: cluster has re-balanced:\n {3}instance index: +(-?\d+)\n {3}instance thread count: +(\d+)\n {3}total thread count: +(\d+)\n/g;

const running = new Set<ClusterTestProcess>();
process.once('exit', () => {
  for (const p of running) p.child.kill('SIGKILL');
});

/** A running `cluster-test`. */
export class ClusterTestProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  readonly exited: Promise<number | string>;
  readonly #args: readonly string[];

  constructor(args: readonly string[]) {
    this.#args = args;
    this.child = spawn(process.execPath, [CLUSTER_TEST_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(this);
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        running.delete(this);
        resolve(code ?? signal ?? -1);
      });
    });
  }

  /** Every re-balance printed so far, in order. */
  balances(): PrintedBalance[] {
    return [...this.stdout.matchAll(BLOCK)].map((m) => ({ index: Number(m[1]), threads: Number(m[2]), total: Number(m[3]) }));
  }

  /** The last re-balance printed, if any. */
  last(): PrintedBalance | undefined {
    return this.balances().at(-1);
  }

  /** Sends `signal` (SIGINT is what Ctrl-C sends). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Polls until `predicate()` holds; throws with both outputs after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<number> {
    const start = performance.now();
    while (!predicate()) {
      if (performance.now() - start > timeoutMs) {
        throw new Error(`cluster-test ${this.#args.join(' ')}: ${what} not seen within ${timeoutMs} ms\n--- stdout\n${this.stdout}--- stderr\n${this.stderr}`);
      }
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`cluster-test ${this.#args.join(' ')} exited (${this.child.exitCode ?? this.child.signalCode}) before ${what}\n--- stdout\n${this.stdout}--- stderr\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return performance.now() - start;
  }

  /** Waits until stdout contains `text`. */
  waitForLine(text: string, timeoutMs: number): Promise<number> {
    return this.waitFor(() => this.stdout.includes(text), timeoutMs, JSON.stringify(text));
  }
}

/** Starts `cluster-test` with `args`. */
export function startClusterTest(...args: string[]): ClusterTestProcess {
  return new ClusterTestProcess(args);
}

/** SIGKILLs every `cluster-test` still running and waits for them to go. */
export async function killAll(): Promise<void> {
  const left = [...running];
  for (const p of left) p.child.kill('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}
