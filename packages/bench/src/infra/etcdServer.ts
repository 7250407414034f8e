/** A real single-member `etcd` on loopback ports, in a temp data directory. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { etcdBinary } from './binaries.js';
import { LOOPBACK_HOST as HOST, freeLoopbackPort, waitFor } from '@roster/kv-adapter/testing';
import { spawnTracked, terminate } from './processes.js';
import { tempDir } from './tempDir.js';

const run = promisify(execFile);

/** A running etcd. */
export interface EtcdServer {
  /** The client URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts etcd with its default timing (heartbeat 100 ms, election 1000 ms). */
export async function startEtcd(): Promise<EtcdServer> {
  const dir = await tempDir('roster-bench-etcd-');
  const clientPort = await freeLoopbackPort();
  const peerPort = await freeLoopbackPort();
  const url = `http://${HOST}:${clientPort}`;
  const peer = `http://${HOST}:${peerPort}`;
  const proc = spawnTracked(etcdBinary(), [
    '--name', 'bench',
    '--data-dir', join(dir.path, 'data'),
    '--listen-client-urls', url,
    '--advertise-client-urls', url,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `bench=${peer}`,
    '--initial-cluster-state', 'new',
    '--log-level', 'error',
  ]);
  const stop = async (): Promise<void> => {
    await terminate(proc);
    await dir.remove();
  };
  try {
    await waitFor(async () => (await fetch(`${url}/health`)).ok, { timeoutMs: 20_000, what: `etcd on ${url}`, everyMs: 100 });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${proc.stderrTail()}`);
  }
  return { url, stop };
}

/** `etcd --version`, e.g. `3.4.23`. */
export async function etcdVersion(): Promise<string> {
  const { stdout } = await run(etcdBinary(), ['--version']);
  return /etcd Version: ([\w.-]+)/.exec(stdout)?.[1] ?? stdout.split('\n')[0] ?? '';
}
