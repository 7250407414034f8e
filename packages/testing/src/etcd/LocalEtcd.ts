import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@roster/kv-adapter';
import { EtcdProcess, etcdPost } from './EtcdProcess.js';
import { LOOPBACK_HOST, freeLoopbackPort } from '../process/loopback.js';
import { waitFor } from '../process/waitFor.js';

/** Options of {@link LocalEtcd.start}. */
export interface LocalEtcdOptions {
  /** The `etcd` binary to run. @defaultValue `"etcd"` (found on the PATH) */
  readonly binary?: string;
  /** How many members: 1, or 3 for a cluster that survives the loss of one. @defaultValue 1 */
  readonly members?: 1 | 3;
  /** etcd's `--heartbeat-interval` in ms. @defaultValue 100 */
  readonly heartbeatMs?: number;
  /** etcd's `--election-timeout` in ms: how long before followers elect a new raft leader. @defaultValue 1000 */
  readonly electionTimeoutMs?: number;
  /** How long to wait for the cluster to elect its raft leader. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
  /** The directory under which the temp data directory is made. @defaultValue the OS temp directory */
  readonly parentDir?: string;
  /**
   * Also serve clients over TLS, on a second port per member (see {@link LocalEtcd.tlsUrl}):
   * the server's certificate and key files, and, with `trustedCaFile`, client certificates
   * required and verified against that CA (etcd's `--client-cert-auth`). The plain port stays,
   * for LocalEtcd's own calls.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly trustedCaFile?: string };
}

/** One member of a {@link LocalEtcd}. */
export interface LocalEtcdMember {
  /** The member's name, `m0`, `m1`, `m2`. */
  readonly name: string;
  /** {@link LOOPBACK_HOST}. */
  readonly host: string;
  /** The client port (what EtcdKV talks to). */
  readonly port: number;
  /** `host:port` of the client port. */
  readonly address: string;
  /** `host:port` of the TLS client port, when the cluster was started with `tls`. */
  readonly tlsAddress: string | undefined;
  /** `http://host:port`. */
  readonly clientUrl: string;
  /** The process id while it runs. */
  readonly pid: number | undefined;
  /** True while its process runs (also while it is paused). */
  readonly running: boolean;
}

/** Options of {@link LocalEtcd.enableAuth}. */
export interface LocalEtcdAuthOptions {
  /** The password of the `root` user, which is created with the `root` role. */
  readonly rootPassword: string;
  /** A user to create too, with read and write on every key beginning with `prefix` only. */
  readonly user?: { readonly name: string; readonly password: string; readonly prefix: string };
}

/**
 * An etcd cluster of local `etcd` processes, for tests, benchmarks and demos: 1 or 3 members on
 * free loopback ports, their data in one temp directory. Members can be SIGKILLed (the raft
 * leader by name: {@link killLeader}), paused with SIGSTOP, restarted with their data, and the
 * cluster can be given users and authentication.
 *
 * Each member runs in a process group of its own, so a Ctrl-C meant for the parent does not stop
 * the store first; {@link stop} kills them all and removes the directory, and whatever still
 * runs when this process exits is SIGKILLed.
 *
 * @example
 * ```ts
 * const etcd = await LocalEtcd.start({ binary: '/usr/bin/etcd', members: 3 });
 * try {
 *   const kv = await EtcdKV.connect({ url: etcd.url });
 *   const old = await etcd.killLeader(); // the other two elect a new raft leader
 *   await etcd.restart(old);
 * } finally {
 *   await etcd.stop();
 * }
 * ```
 */
export class LocalEtcd {
  readonly #dir: string;
  readonly #members: Member[] = [];
  #token: string | undefined;
  #stopped = false;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * Starts the members and resolves once they have a raft leader. On any failure it kills what it
   * started, removes the temp directory and rejects.
   *
   * @throws {@link ConfigError} when an option is out of range.
   */
  static async start(options: LocalEtcdOptions = {}): Promise<LocalEtcd> {
    const binary = options.binary ?? 'etcd';
    const count = options.members ?? 1;
    const heartbeatMs = options.heartbeatMs ?? 100;
    const electionTimeoutMs = options.electionTimeoutMs ?? 1000;
    const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    if (typeof binary !== 'string' || binary === '') throw new ConfigError('binary', binary, 'binary must be the path of an etcd binary');
    if (count !== 1 && count !== 3) throw new ConfigError('members', count, 'members must be 1 or 3');
    if (!Number.isInteger(heartbeatMs) || heartbeatMs < 10) throw new ConfigError('heartbeatMs', heartbeatMs, 'heartbeatMs must be an integer of at least 10');
    if (!Number.isInteger(electionTimeoutMs) || electionTimeoutMs < 5 * heartbeatMs) {
      throw new ConfigError('electionTimeoutMs', electionTimeoutMs, `electionTimeoutMs must be an integer of at least 5 × heartbeatMs (${5 * heartbeatMs})`);
    }
    const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'roster-etcd-'));
    const etcd = new LocalEtcd(dir);
    try {
      const ports = [];
      for (let i = 0; i < count; i++) ports.push({ client: await freeLoopbackPort(), peer: await freeLoopbackPort(), tls: options.tls ? await freeLoopbackPort() : undefined });
      const cluster = ports.map((p, i) => `m${i}=http://${LOOPBACK_HOST}:${p.peer}`).join(',');
      const token = `roster-${ports[0]!.client}`;
      for (const [i, p] of ports.entries()) {
        const clientUrl = `http://${LOOPBACK_HOST}:${p.client}`;
        const peerUrl = `http://${LOOPBACK_HOST}:${p.peer}`;
        const tlsUrl = p.tls === undefined ? undefined : `https://${LOOPBACK_HOST}:${p.tls}`;
        const tlsArgs = options.tls
          ? ['--cert-file', options.tls.certFile, '--key-file', options.tls.keyFile, ...(options.tls.trustedCaFile ? ['--trusted-ca-file', options.tls.trustedCaFile, '--client-cert-auth'] : [])]
          : [];
        // prettier-ignore
        const args = [
          '--name', `m${i}`, '--data-dir', join(dir, `m${i}`),
          '--listen-client-urls', tlsUrl ? `${clientUrl},${tlsUrl}` : clientUrl, '--advertise-client-urls', clientUrl, ...tlsArgs,
          '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl,
          '--initial-cluster', cluster, '--initial-cluster-state', 'new', '--initial-cluster-token', token,
          '--heartbeat-interval', String(heartbeatMs), '--election-timeout', String(electionTimeoutMs),
          '--logger', 'zap', '--log-level', 'error', '--log-outputs', 'stderr',
        ];
        etcd.#members.push(new Member(`m${i}`, p.client, p.tls, new EtcdProcess(binary, clientUrl, args)));
      }
      await Promise.all(etcd.#members.map((member) => member.process.start()));
      await etcd.waitForLeader(readyTimeoutMs);
      return etcd;
    } catch (error) {
      await etcd.stop();
      throw error;
    }
  }

  /** The members, in start order. */
  get members(): readonly LocalEtcdMember[] {
    return this.#members;
  }

  /** The store URL EtcdKV takes: `"etcd://127.0.0.1:p0,127.0.0.1:p1,127.0.0.1:p2"`, with `/prefix` when given. */
  url(prefix = ''): string {
    return `etcd://${this.#members.map((member) => member.address).join(',')}${prefix === '' ? '' : `/${prefix}`}`;
  }

  /** The `etcds://` URL of the TLS ports (started with `tls`), with `/prefix` when given. */
  tlsUrl(prefix = ''): string {
    if (this.#members.some((member) => member.tlsAddress === undefined)) throw new Error('LocalEtcd: started without `tls`');
    return `etcds://${this.#members.map((member) => member.tlsAddress).join(',')}${prefix === '' ? '' : `/${prefix}`}`;
  }

  /**
   * The member the running members report as their raft leader, or `undefined` when none
   * reports one (quorum lost, an election under way).
   */
  async leader(): Promise<LocalEtcdMember | undefined> {
    const answering = this.#members.filter((member) => member.running && !member.paused);
    const statuses = await Promise.all(
      answering.map((member) =>
        etcdPost(member.clientUrl, '/v3/maintenance/status', {}, { timeoutMs: 500 }).then(
          (status: { leader?: string; header?: { member_id?: string } }) => {
            if (status.header?.member_id) member.id = String(status.header.member_id);
            return status;
          },
          () => undefined,
        ),
      ),
    );
    for (const status of statuses) {
      if (status?.leader === undefined || status.leader === '0') continue;
      const leader = this.#members.find((member) => member.id === String(status.leader));
      if (leader?.running) return leader;
    }
    return undefined;
  }

  /** Resolves (with the time it took) once a running member reports a raft leader that answers. */
  waitForLeader(timeoutMs = 30_000): Promise<number> {
    return waitFor(async () => (await this.leader()) !== undefined, {
      what: () => `the etcd members ${this.#members.map((m) => m.address).join(', ')} to elect a raft leader\n${this.#members.map((m) => m.process.output).join('\n')}`,
      timeoutMs,
      everyMs: 50,
    });
  }

  /** SIGKILLs a member, as a crash (a paused one too); resolves once it is gone. Does nothing when it is not running. */
  kill(member: LocalEtcdMember): Promise<void> {
    const own = this.#own(member);
    own.paused = false;
    return own.process.kill();
  }

  /** SIGKILLs the current raft leader and resolves with it. Rejects when there is none. */
  async killLeader(): Promise<LocalEtcdMember> {
    const leader = await this.leader();
    if (!leader) throw new Error('LocalEtcd: no raft leader to kill');
    await this.kill(leader);
    return leader;
  }

  /** Freezes a member with SIGSTOP: its connections stay open, and nothing answers. */
  pause(member: LocalEtcdMember): void {
    const own = this.#own(member);
    own.process.signal('SIGSTOP');
    own.paused = own.running;
  }

  /** Undoes {@link pause} with SIGCONT. */
  resume(member: LocalEtcdMember): void {
    const own = this.#own(member);
    own.process.signal('SIGCONT');
    own.paused = false;
  }

  /**
   * Starts a member again with its data (killing it first when it runs) and resolves once its
   * gateway answers. It has a raft leader again once a quorum runs: see {@link waitForLeader}.
   */
  async restart(member: LocalEtcdMember): Promise<void> {
    const own = this.#own(member);
    if (this.#stopped) throw new Error('LocalEtcd: restart() after stop()');
    await this.kill(own);
    await own.process.start();
  }

  /**
   * Turns etcd's authentication on: creates `root` (role `root`) and, with `user`, a user whose
   * role may read and write the keys beginning with `user.prefix` only. From then on every
   * request needs a token; {@link LocalEtcd} keeps root's for its own calls.
   */
  async enableAuth(options: LocalEtcdAuthOptions): Promise<void> {
    const post = (path: string, body: object): Promise<unknown> => this.#post(path, body);
    await post('/v3/auth/role/add', { name: 'root' });
    await post('/v3/auth/user/add', { name: 'root', password: options.rootPassword });
    await post('/v3/auth/user/grant', { user: 'root', role: 'root' });
    if (options.user) {
      const { name, password, prefix } = options.user;
      const key = Buffer.from(prefix).toString('base64');
      const end = Buffer.from(prefix);
      end[end.length - 1]! += 1;
      await post('/v3/auth/role/add', { name: `${name}-role` });
      await post('/v3/auth/role/grant', { name: `${name}-role`, perm: { permType: 'READWRITE', key, range_end: end.toString('base64') } });
      await post('/v3/auth/user/add', { name, password });
      await post('/v3/auth/user/grant', { user: name, role: `${name}-role` });
    }
    await post('/v3/auth/enable', {});
    const reply = (await post('/v3/auth/authenticate', { name: 'root', password: options.rootPassword })) as { token: string };
    this.#token = reply.token;
  }

  /**
   * Sets `user`'s password (after {@link enableAuth}). Every change to users bumps etcd's auth
   * revision, so the tokens handed out before are refused from then on: what a client must
   * survive by authenticating again.
   */
  async changePassword(user: string, password: string): Promise<void> {
    await this.#post('/v3/auth/user/changepw', { name: user, password });
  }

  /** Kills every member and removes the temp directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.#members.map((member) => member.process.kill()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  /** Calls {@link LocalEtcd.stop}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** POSTs to the first running member that answers. */
  async #post(path: string, body: object): Promise<unknown> {
    let last: unknown;
    for (const member of this.#members) {
      if (!member.running || member.paused) continue;
      try {
        return await etcdPost(member.clientUrl, path, body, { timeoutMs: 5000, ...(this.#token && { token: this.#token }) });
      } catch (error) {
        last = error;
        if (!(error instanceof TypeError) && !(error instanceof DOMException)) throw error;
      }
    }
    throw last ?? new Error('LocalEtcd: no member is running');
  }

  #own(member: LocalEtcdMember): Member {
    const own = this.#members.find((candidate) => candidate === member);
    if (!own) throw new Error(`${member.address} is not a member of this etcd cluster`);
    return own;
  }
}

class Member implements LocalEtcdMember {
  readonly host = LOOPBACK_HOST;
  readonly address: string;
  readonly tlsAddress: string | undefined;
  readonly clientUrl: string;
  /** etcd's member id, learned from its status. */
  id: string | undefined;
  paused = false;

  constructor(
    readonly name: string,
    readonly port: number,
    tlsPort: number | undefined,
    readonly process: EtcdProcess,
  ) {
    this.address = `${LOOPBACK_HOST}:${port}`;
    this.tlsAddress = tlsPort === undefined ? undefined : `${LOOPBACK_HOST}:${tlsPort}`;
    this.clientUrl = process.clientUrl;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return this.process.running;
  }
}
