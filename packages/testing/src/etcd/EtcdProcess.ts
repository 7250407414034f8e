import { ServerProcess } from '../process/ServerProcess.js';

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
  readonly #server: ServerProcess;

  constructor(
    binary: string,
    readonly clientUrl: string,
    private readonly args: readonly string[],
  ) {
    this.#server = new ServerProcess(binary, `etcd on ${clientUrl}`);
  }

  get pid(): number | undefined {
    return this.#server.pid;
  }

  get running(): boolean {
    return this.#server.running;
  }

  /** The last lines the member wrote, for error messages. */
  get output(): string {
    return this.#server.output;
  }

  /** Spawns the member and resolves once its gateway answers (it may have no leader yet). */
  async start(timeoutMs = 20_000): Promise<void> {
    const answers = async (): Promise<boolean> => (await etcdPost(this.clientUrl, '/v3/maintenance/status', {}, { timeoutMs: 500 })) !== undefined;
    await this.#server.start(this.args, answers, timeoutMs);
  }

  /** SIGKILLs the member (paused or not) and resolves once it is gone. */
  kill(): Promise<void> {
    return this.#server.kill();
  }

  /** Sends `signal` (SIGSTOP, SIGCONT) to the running member; does nothing when it is not running. */
  signal(signal: NodeJS.Signals): void {
    this.#server.signal(signal);
  }
}
