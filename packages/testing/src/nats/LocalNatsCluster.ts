import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../process/loopback.js';
import { waitFor } from '../process/waitFor.js';
import { resolveCommon } from './LocalNats.js';
import { NatsServer } from './NatsServer.js';

/** Options of {@link LocalNatsCluster.start}. */
export interface LocalNatsClusterOptions {
  /** The `nats-server` binary to run. @defaultValue Debian's `/usr/sbin/nats-server` when present, else `"nats-server"` on the PATH */
  readonly binary?: string;
  /** Each server's `max_payload`. @defaultValue 2 MiB */
  readonly maxPayloadBytes?: number;
  /** How long to wait for the cluster to elect its JetStream meta leader. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
  /** The directory under which the temp directory is made. @defaultValue the OS temp directory */
  readonly parentDir?: string;
}

/** One server of a {@link LocalNatsCluster}. */
export interface LocalNatsClusterServer {
  /** The server's name: `n0`, `n1`, `n2`. */
  readonly name: string;
  /** The client port. */
  readonly port: number;
  /** `127.0.0.1:port`. */
  readonly address: string;
  /** True while its process runs (also while it is frozen). */
  readonly running: boolean;
}

interface JszPage {
  readonly meta_cluster?: { readonly leader?: string };
  readonly account_details?: readonly { readonly stream_detail?: readonly { readonly name: string; readonly cluster?: { readonly leader?: string } }[] }[];
}

/**
 * A JetStream cluster of three local `nats-server` processes on loopback, for tests: free ports,
 * one temp directory. It finds and kills the JetStream meta leader ({@link killMetaLeader}) or a
 * stream's leader ({@link killStreamLeader}, e.g. the stream `KV_<bucket>` of a key-value
 * bucket), freezes servers with SIGSTOP and restarts them with their data.
 *
 * @example
 * ```ts
 * const cluster = await LocalNatsCluster.start({ binary: '/usr/bin/nats-server' });
 * try {
 *   const kv = await NatsKV.connect({ url: cluster.url('app', 3) });
 *   const old = await cluster.killStreamLeader('KV_app'); // the two others elect a new one
 *   await cluster.restart(old);
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 */
export class LocalNatsCluster {
  readonly #dir: string;
  readonly #servers: NatsServer[];
  readonly #readyTimeoutMs: number;

  private constructor(dir: string, servers: NatsServer[], readyTimeoutMs: number) {
    this.#dir = dir;
    this.#servers = servers;
    this.#readyTimeoutMs = readyTimeoutMs;
  }

  /** Starts three servers and resolves once JetStream has a meta leader; on failure, cleans up and rejects. */
  static async start(options: LocalNatsClusterOptions = {}): Promise<LocalNatsCluster> {
    const { binary, maxPayloadBytes, readyTimeoutMs } = resolveCommon({ readyTimeoutMs: 30_000, ...options });
    const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'roster-nats-cluster-'));
    const servers: NatsServer[] = [];
    const cluster = new LocalNatsCluster(dir, servers, readyTimeoutMs);
    try {
      const ports = [];
      for (let i = 0; i < 3; i++) ports.push({ client: await freeLoopbackPort(), monitor: await freeLoopbackPort(), route: await freeLoopbackPort() });
      const routes = ports.map((p) => p.route);
      for (const [i, p] of ports.entries()) {
        const own = join(dir, `n${i}`);
        await mkdir(own);
        servers.push(new NatsServer(binary, { name: `n${i}`, port: p.client, monitorPort: p.monitor, dir: own, maxPayloadBytes, cluster: { name: 'roster', port: p.route, routes } }));
      }
      // Together: JetStream is healthy on none of them until a quorum of them runs.
      await Promise.all(servers.map((s) => s.start(readyTimeoutMs)));
      await cluster.metaLeader();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** The servers, in start order. */
  get servers(): readonly LocalNatsClusterServer[] {
    return this.#servers.map((s) => ({ name: s.config.name, port: s.config.port, address: s.address, running: s.process.running }));
  }

  /** `nats://127.0.0.1:p0,127.0.0.1:p1,127.0.0.1:p2[/bucket][?replicas=N]`. */
  url(bucket = '', replicas?: number): string {
    return `nats://${this.#servers.map((s) => s.address).join(',')}${bucket ? `/${bucket}` : ''}${replicas === undefined ? '' : `?replicas=${replicas}`}`;
  }

  /** The name of the JetStream meta leader, waiting (up to the ready timeout) until the running servers agree on one. */
  async metaLeader(): Promise<string> {
    let leader: string | undefined;
    await waitFor(
      async () => {
        leader = await this.#agreed((page) => page.meta_cluster?.leader, '/jsz');
        return leader !== undefined;
      },
      { what: 'the NATS servers to agree on a JetStream meta leader', timeoutMs: this.#readyTimeoutMs, everyMs: 100 },
    );
    return leader!;
  }

  /** The name of `stream`'s leader (`KV_<bucket>` for a key-value bucket), waiting until the running servers agree on one. */
  async streamLeader(stream: string): Promise<string> {
    let leader: string | undefined;
    const of = (page: JszPage): string | undefined =>
      page.account_details?.flatMap((a) => a.stream_detail ?? []).find((s) => s.name === stream)?.cluster?.leader;
    await waitFor(
      async () => {
        leader = await this.#agreed(of, '/jsz?accounts=true&streams=true');
        return leader !== undefined;
      },
      { what: `the NATS servers to agree on a leader of stream ${stream}`, timeoutMs: this.#readyTimeoutMs, everyMs: 100 },
    );
    return leader!;
  }

  /** SIGKILLs the JetStream meta leader; resolves with it once it is gone. */
  async killMetaLeader(): Promise<LocalNatsClusterServer> {
    return this.kill({ name: await this.metaLeader() });
  }

  /** SIGKILLs the leader of `stream`; resolves with it once it is gone. */
  async killStreamLeader(stream: string): Promise<LocalNatsClusterServer> {
    return this.kill({ name: await this.streamLeader(stream) });
  }

  /** SIGKILLs a server, as a crash (a frozen one too); resolves with it once it is gone. */
  async kill(server: Pick<LocalNatsClusterServer, 'name'>): Promise<LocalNatsClusterServer> {
    const own = this.#named(server.name);
    await own.process.kill();
    return this.servers.find((s) => s.name === server.name)!;
  }

  /** Starts a server again with its data; resolves once it reports JetStream healthy. */
  restart(server: Pick<LocalNatsClusterServer, 'name'>): Promise<void> {
    return this.#named(server.name).start(this.#readyTimeoutMs);
  }

  /** Freezes a server with SIGSTOP; resolves once it is stopped. */
  freeze(server: Pick<LocalNatsClusterServer, 'name'>): Promise<void> {
    return this.#named(server.name).freeze();
  }

  /** Undoes {@link freeze} with SIGCONT. */
  thaw(server: Pick<LocalNatsClusterServer, 'name'>): void {
    this.#named(server.name).process.signal('SIGCONT');
  }

  /** Kills every server and removes the directory. Idempotent. */
  async stop(): Promise<void> {
    await Promise.all(this.#servers.map((s) => s.process.kill()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  /** Calls {@link stop}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #named(name: string): NatsServer {
    const server = this.#servers.find((s) => s.config.name === name);
    if (!server) throw new Error(`no NATS server named ${JSON.stringify(name)} in this cluster (${this.#servers.map((s) => s.config.name).join(', ')})`);
    return server;
  }

  /** What every running server's monitoring page says, when they all say the same running server. */
  async #agreed(read: (page: JszPage) => string | undefined, path: string): Promise<string | undefined> {
    const running = this.#servers.filter((s) => s.process.running);
    const seen = await Promise.all(running.map(async (s) => {
      const page = await s.monitor<JszPage>(path);
      return page === undefined ? undefined : read(page);
    }));
    const first = seen[0];
    const live = running.some((s) => s.config.name === first);
    return first !== undefined && live && seen.every((v) => v === first) ? first : undefined;
  }
}
