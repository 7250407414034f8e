/** A real single-member `etcd` on loopback ports, in a temp data directory. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LocalEtcd } from '@roster/testing';
import { etcdBinary } from './binaries.js';
import { onSignalCleanup } from './processes.js';

const run = promisify(execFile);

/** A running etcd. */
export interface EtcdServer {
  /** The client URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts etcd with its default timing (heartbeat 100 ms, election 1000 ms): @roster/testing's
 * `LocalEtcd` with one member, on its one process fixture, as in the tests. A Ctrl-C of the bench
 * stops it too.
 */
export async function startEtcd(): Promise<EtcdServer> {
  const etcd = await LocalEtcd.start({ binary: etcdBinary(), members: 1, heartbeatMs: 100, electionTimeoutMs: 1000 });
  const unregister = onSignalCleanup(() => etcd.stop());
  return {
    url: etcd.members[0]!.clientUrl,
    async stop() {
      unregister();
      await etcd.stop();
    },
  };
}

/** `etcd --version`, e.g. `3.4.23`. */
export async function etcdVersion(): Promise<string> {
  const { stdout } = await run(etcdBinary(), ['--version']);
  return /etcd Version: ([\w.-]+)/.exec(stdout)?.[1] ?? stdout.split('\n')[0] ?? '';
}
