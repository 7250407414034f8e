/**
 * web-service processes for tests: spawn the built `dist/main.js`, parse its JSON lines, signal
 * it; {@link killAll} SIGKILLs whatever is left (call it in `afterAll`), and every process is also
 * SIGKILLed when the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built entry point (`pnpm build` first). */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** One line of a service's stdout (tokens are decimal strings), with when the test read it. */
export type Line = { readonly event: string; readonly at: number } & Record<string, unknown>;

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A running web-service process. */
export class Service {
  readonly child: ChildProcess;
  readonly lines: Line[] = [];
  /** Resolves with the exit code (`null` when killed by a signal). */
  readonly exited: Promise<number | null>;
  stderr = '';
  #partial = '';

  constructor(
    readonly id: string,
    args: readonly string[],
  ) {
    this.child = spawn(process.execPath, [MAIN, '--id', id, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(this.child);
    this.child.stdout!.on('data', (chunk: Buffer) => this.#take(chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code) => {
        running.delete(this.child);
        resolve(code);
      }),
    );
  }

  #take(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop()!;
    for (const line of parts) this.lines.push({ ...(JSON.parse(line) as Line), at: performance.now() });
  }

  /** The base URL of its HTTP server, once it listens. */
  get url(): string | undefined {
    return this.last('listening')?.url as string | undefined;
  }

  /** The lines of one event, oldest first. */
  events(event: string): Line[] {
    return this.lines.filter((line) => line.event === event);
  }

  last(event: string): Line | undefined {
    return this.events(event).at(-1);
  }

  /** True while its leader work runs: its last `leading` line is newer than its last `stopped-leading`. */
  leads(): boolean {
    return this.lines.filter((line) => line.event === 'leading' || line.event === 'stopped-leading').at(-1)?.event === 'leading';
  }

  /** `GET` or `POST` on its server: the status and the JSON (or text) body. */
  async request(path: string, method = 'GET'): Promise<{ status: number; body: unknown; text: string }> {
    const response = await fetch(`${this.url}${path}`, { method });
    const text = await response.text();
    let body: unknown = text;
    if (response.headers.get('content-type')?.startsWith('application/json')) body = JSON.parse(text);
    return { status: response.status, body, text };
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** What the process printed, for failure messages. */
  describe(): string {
    return `--- ${this.id}\n${this.lines.map((line) => JSON.stringify(line)).join('\n')}\n${this.stderr}`;
  }
}

/** SIGKILLs every service still running, and waits for them to go. */
export async function killAll(services: readonly Service[]): Promise<void> {
  for (const service of services) service.signal('SIGKILL');
  await Promise.all(services.map((service) => service.exited));
}

/** Polls `predicate` every 25 ms until it returns a value other than `undefined` or `false`; throws `describe()` after `timeoutMs`. */
export async function until<T>(predicate: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, describe: () => string): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = await predicate();
    if (value !== undefined && value !== false) return value;
    if (performance.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
