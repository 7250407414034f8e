/**
 * The MariaDB and nats-server the bench runs Roster on: @roster/testing's `LocalMariaDB` and
 * `LocalNats` (JetStream on), as in the tests, each stopped by a Ctrl-C of the bench too.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { LocalMariaDB, LocalNats } from '@roster/testing';
import { onSignalCleanup } from './processes.js';

const run = promisify(execFile);

/** A running MariaDB: its `mysql://` URL (the `roster` user and database), its version, and SQL as root. */
export interface MariaDBServer {
  readonly url: string;
  readonly version: string;
  /** Runs SQL as root and resolves to its output (rows on lines, columns split by tabs). */
  sql(statement: string): Promise<string>;
  stop(): Promise<void>;
}

/** A running nats-server with JetStream: the `nats://` URL of a bucket, and its version. */
export interface RunningNats {
  url(bucket: string): string;
  readonly version: string;
  stop(): Promise<void>;
}

/** Starts a MariaDB (as an unprivileged user when the bench runs as root). */
export async function startMariaDB(): Promise<MariaDBServer> {
  const db = await LocalMariaDB.start();
  const unregister = onSignalCleanup(() => db.destroy());
  try {
    const version = await db.sql('SELECT VERSION()');
    return {
      url: db.url,
      version,
      sql: (statement) => db.sql(statement),
      async stop() {
        unregister();
        await db.destroy();
      },
    };
  } catch (error) {
    unregister();
    await db.destroy();
    throw error;
  }
}

/** Starts a nats-server with JetStream. */
export async function startNats(): Promise<RunningNats> {
  const nats = await LocalNats.start();
  const unregister = onSignalCleanup(() => nats.stop());
  return {
    url: (bucket) => nats.url(bucket),
    version: await natsVersion(),
    async stop() {
      unregister();
      await nats.stop();
    },
  };
}

/** `nats-server --version`, e.g. `2.9.10`; `unknown` when it cannot be read. */
async function natsVersion(): Promise<string> {
  const binary = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((path) => existsSync(path)) ?? 'nats-server';
  try {
    const { stdout } = await run(binary, ['--version']);
    return /v?(\d+\.\d+\.\d+[\w.-]*)/.exec(stdout)?.[1] ?? stdout.trim();
  } catch {
    return 'unknown';
  }
}
