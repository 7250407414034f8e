import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOOPBACK_HOST } from '../process/loopback.js';
import { ServerProcess } from '../process/ServerProcess.js';
import { waitFor } from '../process/waitFor.js';

/** How a {@link NatsServer} is configured: what `nats-server.conf` says. */
export interface NatsServerConfig {
  /** The server's name (`n0`, `n1`, …): JetStream clustering needs unique names. */
  readonly name: string;
  /** The client port. */
  readonly port: number;
  /** The HTTP monitoring port (`/healthz`, `/jsz`), through which LocalNats watches the server. */
  readonly monitorPort: number;
  /** The directory of its config file and JetStream store. */
  readonly dir: string;
  /** `max_payload` in bytes. */
  readonly maxPayloadBytes: number;
  /** Clients must present these credentials. */
  readonly auth?: { readonly user: string; readonly password: string } | { readonly token: string };
  /** TLS on the client port: the server's certificate and key files; with `caFile`, client certificates required and verified. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly caFile?: string };
  /** The cluster: this server's route port and every server's route port (its own included). */
  readonly cluster?: { readonly name: string; readonly port: number; readonly routes: readonly number[] };
}

/** One `nats-server` process with JetStream, configured by a file in its own directory. */
export class NatsServer {
  readonly process: ServerProcess;

  constructor(
    binary: string,
    readonly config: NatsServerConfig,
  ) {
    this.process = new ServerProcess(binary, `nats-server ${config.name} on port ${config.port}`);
  }

  /** `127.0.0.1:port`. */
  get address(): string {
    return `${LOOPBACK_HOST}:${this.config.port}`;
  }

  /** Writes the config file and starts the server; resolves once `/healthz` says JetStream is up. */
  async start(timeoutMs: number): Promise<void> {
    const file = join(this.config.dir, 'nats-server.conf');
    await writeFile(file, renderConfig(this.config));
    await this.process.start(['-c', file], () => this.healthy(), timeoutMs);
  }

  /**
   * Freezes the server with SIGSTOP and resolves once it is stopped (on Linux, once
   * `/proc/<pid>/stat` says so): a request sent right after the signal could otherwise still be
   * answered.
   */
  async freeze(): Promise<void> {
    const pid = this.process.pid;
    this.process.signal('SIGSTOP');
    if (pid === undefined || process.platform !== 'linux') return;
    await waitFor(async () => /^\d+ \(.*\) T /.test(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '0 (x) T ')), {
      what: `${this.process.name} to stop after SIGSTOP`,
      timeoutMs: 2000,
      everyMs: 5,
    });
  }

  /** True when the server answers `/healthz` with ok (JetStream ready, its streams current). */
  async healthy(): Promise<boolean> {
    const reply = await this.monitor<{ status?: string }>('/healthz');
    return reply?.status === 'ok';
  }

  /** A JSON page of the monitoring port, `undefined` when the server does not answer within 1 s. */
  async monitor<T>(path: string): Promise<T | undefined> {
    try {
      const response = await fetch(`http://${LOOPBACK_HOST}:${this.config.monitorPort}${path}`, { signal: AbortSignal.timeout(1000) });
      return (await response.json()) as T;
    } catch {
      return undefined;
    }
  }
}

function renderConfig(c: NatsServerConfig): string {
  const lines = [
    `server_name: ${c.name}`,
    `listen: "${LOOPBACK_HOST}:${c.port}"`,
    `http: "${LOOPBACK_HOST}:${c.monitorPort}"`,
    `max_payload: ${c.maxPayloadBytes}`,
    `jetstream { store_dir: ${JSON.stringify(join(c.dir, 'js'))} }`,
  ];
  if (c.auth && 'token' in c.auth) lines.push(`authorization { token: ${JSON.stringify(c.auth.token)} }`);
  else if (c.auth) lines.push(`authorization { user: ${JSON.stringify(c.auth.user)}, password: ${JSON.stringify(c.auth.password)} }`);
  if (c.tls) {
    const verify = c.tls.caFile === undefined ? '' : `, ca_file: ${JSON.stringify(c.tls.caFile)}, verify: true`;
    lines.push(`tls { cert_file: ${JSON.stringify(c.tls.certFile)}, key_file: ${JSON.stringify(c.tls.keyFile)}${verify} }`);
  }
  if (c.cluster) {
    const routes = c.cluster.routes.filter((p) => p !== c.cluster!.port).map((p) => `"nats://${LOOPBACK_HOST}:${p}"`);
    lines.push(`cluster { name: ${c.cluster.name}, listen: "${LOOPBACK_HOST}:${c.cluster.port}", routes: [${routes.join(', ')}] }`);
  }
  return `${lines.join('\n')}\n`;
}
