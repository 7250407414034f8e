/**
 * job-runner processes for tests: spawn the built `dist/main.js`, parse its JSON lines, signal it;
 * {@link killAllRunners} SIGKILLs whatever is left (call it in `afterAll`), and every process is
 * also SIGKILLed when the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built entry point (`pnpm build` first). */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** One line of a runner's stdout (tokens are decimal strings). */
export type Line = { readonly event: string; readonly at: number } & Record<string, unknown>;

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A running job-runner process. */
export class Runner {
  readonly child: ChildProcess;
  readonly lines: Line[] = [];
  readonly exited: Promise<void>;
  stderr = '';
  #partial = '';

  constructor(
    readonly id: string,
    args: readonly string[],
  ) {
    this.child = spawn(process.execPath, [MAIN, '--id', id, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(this.child);
    this.child.stdout!.on('data', (chunk: Buffer) => this.#take(chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', () => {
        running.delete(this.child);
        resolve();
      }),
    );
  }

  #take(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop()!;
    for (const line of parts) this.lines.push({ ...(JSON.parse(line) as Line), at: performance.now() });
  }

  /** The lines of one event, oldest first. */
  events(event: string): Line[] {
    return this.lines.filter((line) => line.event === event);
  }

  /** The last line of one event. */
  last(event: string): Line | undefined {
    return this.events(event).at(-1);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** What the process printed, for failure messages. */
  describe(): string {
    return `--- ${this.id}\n${this.lines.map((line) => JSON.stringify(line)).join('\n')}\n${this.stderr}`;
  }
}

/** SIGKILLs every runner still running, and waits for them to go. */
export async function killAllRunners(runners: readonly Runner[]): Promise<void> {
  for (const runner of runners) runner.signal('SIGKILL');
  await Promise.all(runners.map((runner) => runner.exited));
}

/** Polls `predicate` every 25 ms until it returns a value other than `undefined` or `false`; throws `describe()` after `timeoutMs`. */
export async function until<T>(predicate: () => T | undefined | false, timeoutMs: number, describe: () => string): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = predicate();
    if (value !== undefined && value !== false) return value;
    if (performance.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
