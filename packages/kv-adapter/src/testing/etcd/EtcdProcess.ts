import { spawn, type ChildProcess } from 'node:child_process';
import { waitFor } from '../localRedis/waitFor.js';

/** Every etcd process running now, SIGKILLed when this process exits, as a last resort. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const running of live) running.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** POSTs `body` to an etcd member's gateway and resolves with the JSON reply (rejects on an error reply). */
export async function etcdPost(clientUrl: string, path: string, body: object, options: { timeoutMs?: number; token?: string } = {}): Promise<any> {
  const response = await fetch(`${clientUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.token && { authorization: options.token }) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 2000),
  });
  const reply: any = await response.json();
  if (!response.ok || reply?.error !== undefined) throw new Error(`etcd ${path}: ${reply?.message ?? reply?.error ?? response.status}`);
  return reply;
}

/**
 * One `etcd` member process, in a process group of its own, that can be started again after it
 * was killed (with the same data directory). Internal to {@link LocalEtcd}.
 */
export class EtcdProcess {
  #child: ChildProcess | undefined;
  #output = '';

  constructor(
    private readonly binary: string,
    readonly clientUrl: string,
    private readonly args: readonly string[],
  ) {}

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** The last lines the member wrote, for error messages. */
  get output(): string {
    return this.#output;
  }

  /** Spawns the member and resolves once its gateway answers (it may have no leader yet). */
  async start(timeoutMs = 20_000): Promise<void> {
    if (this.#child) return;
    const child = spawn(this.binary, this.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.#child = child;
    this.#output = '';
    track(child);
    const ended = new AbortController();
    const keep = (chunk: Buffer): void => void (this.#output = (this.#output + chunk.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (error) => {
      if (this.#child === child) this.#child = undefined;
      ended.abort(new Error(`cannot run ${this.binary}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      if (this.#child === child) this.#child = undefined;
      ended.abort(new Error(`etcd on ${this.clientUrl} exited with ${code ?? signal}:\n${this.#output}`));
    });
    try {
      await waitFor(async () => (await etcdPost(this.clientUrl, '/v3/maintenance/status', {}, { timeoutMs: 500 })) !== undefined, {
        what: `etcd on ${this.clientUrl} to answer`,
        timeoutMs,
        signal: ended.signal,
      });
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  /** SIGKILLs the member (paused or not) and resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  }

  /** Sends `signal` (SIGSTOP, SIGCONT) to the running member; does nothing when it is not running. */
  signal(signal: NodeJS.Signals): void {
    this.#child?.kill(signal);
  }
}
