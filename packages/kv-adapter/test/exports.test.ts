import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `body` (an ES module) in a fresh Node process in this package's directory, after the build,
 * and resolves with the `node_modules` packages it loaded through require(): ioredis and pg are
 * CommonJS, so whoever imports them puts them in `require.cache`.
 */
function loadedDrivers(body: string): Promise<string[]> {
  const script = `${body}
const { createRequire } = await import('node:module');
const loaded = Object.keys(createRequire(import.meta.url).cache).map((path) => /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(path)?.[1]).filter(Boolean);
console.log(JSON.stringify([...new Set(loaded)].filter((name) => name === 'ioredis' || name === 'pg' || name === '@nats-io/transport-node' || name === 'mysql2').sort()));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as string[]);
    });
  });
}

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/kv-adapter', () => {
  it('the main entry exports exactly what a service calls: the KV interface and errors, keys, MemoryKV, the clock, the logger seam, connectStore', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'AbortError',
      'CompoundKey',
      'ConfigError',
      'DEFAULT_NONCE_WINDOW',
      'InvalidKeyError',
      'InvalidValueError',
      'KVClosedError',
      'KVRejectedError',
      'KeyUnavailableError',
      'MemoryKV',
      'MissingDriverError',
      'Namespace',
      'RealClock',
      'RosterError',
      'StoreAccessError',
      'StoreUnavailableError',
      'UnsupportedOperationError',
      'ValueTooLargeError',
      'checkStoreUrl',
      'connectStore',
      'isKeyFailure',
      'probeAccess',
      'readWindow',
      'realClock',
      'redactStoreUrl',
      'silentLogger',
      'writeMoving',
    ]);
  });

  it('the internal entry (no public API) holds the utilities the other Roster packages share', async () => {
    expect(Object.keys(await import('../src/internal.js')).sort()).toEqual([
      'LevelLogger',
      'LifoGate',
      'LocalDeadline',
      'UpdateStream',
      'abortReason',
      'deadline',
      'raceSignal',
      'sleep',
      'withDeadline',
    ]);
  });

  it('each backend with a driver has an entry of its own: RedisKV, PostgresKV and EtcdKV with their URL parsers', async () => {
    expect(Object.keys(await import('../src/redis.js')).sort()).toEqual(['RedisKV', 'parseStoreUrl']);
    expect(Object.keys(await import('../src/postgres.js')).sort()).toEqual(['PostgresKV', 'parsePostgresUrl']);
    expect(Object.keys(await import('../src/mysql.js')).sort()).toEqual(['MySQLKV', 'parseMySQLUrl']);
    expect(Object.keys(await import('../src/etcd.js')).sort()).toEqual(['EtcdKV', 'parseEtcdUrl', 'redactEtcdUrl']);
    expect(Object.keys(await import('../src/nats.js')).sort()).toEqual(['NatsKV', 'parseNatsUrl', 'redactNatsUrl']);
  });

  it('the exports map has the main entry, one per backend and the internal one; no test doubles', () => {
    const { exports } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(exports)).toEqual(['.', './redis', './postgres', './mysql', './etcd', './nats', './internal', './package.json']);
  });

  it('the drivers are optional peer dependencies, and nothing else is a dependency', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(pkg.dependencies).toBeUndefined();
    const drivers = ['@nats-io/jetstream', '@nats-io/kv', '@nats-io/transport-node', 'ioredis', 'mysql2', 'pg'];
    expect(Object.keys(pkg.peerDependencies ?? {}).sort()).toEqual(drivers);
    expect(pkg.peerDependenciesMeta).toEqual(Object.fromEntries(drivers.map((name) => [name, { optional: true }])));
  });

  it('the package resolves a backend subpath to its built entry, apart from the main entry', async () => {
    const etcd = await import('@roster/kv-adapter/etcd');
    expect(typeof etcd.EtcdKV).toBe('function');
    expect('EtcdKV' in (await import('../src/index.js'))).toBe(false);
    expect('RedisKV' in (await import('../src/index.js'))).toBe(false);
  });
});

describe('what each entry loads (the built package, in a fresh process)', () => {
  it('the main entry loads no driver; the postgres, mysql and etcd entries load none either until they connect', async () => {
    expect(await loadedDrivers(`await import('./dist/index.js'); await import('./dist/postgres.js'); await import('./dist/mysql.js'); await import('./dist/etcd.js');`)).toEqual([]);
  });

  it('connectStore on a postgres:// URL loads pg and never ioredis', async () => {
    const body = `const { connectStore } = await import('./dist/index.js');
const error = await connectStore('postgres://roster@127.0.0.1:1/app', { connectTimeoutMs: 500 }).catch((e) => e);
if (error?.code !== 'KV_STORE_UNAVAILABLE') throw new Error('expected the store to be unavailable, got ' + error);`;
    expect(await loadedDrivers(body)).toEqual(['pg']);
  });

  it('connectStore on an etcd:// URL loads no driver; on a redis:// URL, ioredis only', async () => {
    const etcd = `const { connectStore } = await import('./dist/index.js');
await connectStore('etcd://127.0.0.1:1', { connectTimeoutMs: 300 }).then(() => { throw new Error('connected?'); }, () => {});`;
    expect(await loadedDrivers(etcd)).toEqual([]);
    const redis = `const { connectStore } = await import('./dist/index.js');
await connectStore('redis://127.0.0.1:1', { connectTimeoutMs: 300 }).then(() => { throw new Error('connected?'); }, () => {});`;
    expect(await loadedDrivers(redis)).toEqual(['ioredis']);
  });

  it('connectStore on a mysql:// URL loads mysql2 and never ioredis or pg', async () => {
    const body = `const { connectStore } = await import('./dist/index.js');
const error = await connectStore('mysql://roster@127.0.0.1:1/app', { connectTimeoutMs: 500 }).catch((e) => e);
if (error?.code !== 'KV_STORE_UNAVAILABLE') throw new Error('expected the store to be unavailable, got ' + error);`;
    expect(await loadedDrivers(body)).toEqual(['mysql2']);
  });

  it('connectStore on a nats:// URL loads the NATS clients and never ioredis or pg', async () => {
    const body = `const { connectStore } = await import('./dist/index.js');
const error = await connectStore('nats://127.0.0.1:1/app', { connectTimeoutMs: 300 }).catch((e) => e);
if (error?.code !== 'KV_STORE_UNAVAILABLE') throw new Error('expected the store to be unavailable, got ' + error);`;
    expect(await loadedDrivers(body)).toEqual(['@nats-io/transport-node']);
  });
});
