import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/kv-adapter', () => {
  it('the main entry exports exactly the storage layer, and no test double', async () => {
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
      'LevelLogger',
      'LocalDeadline',
      'MemoryKV',
      'MissingDriverError',
      'Namespace',
      'RealClock',
      'RedisKV',
      'RosterError',
      'StoreAccessError',
      'StoreUnavailableError',
      'UnsupportedOperationError',
      'UpdateStream',
      'ValueTooLargeError',
      'abortReason',
      'checkStoreUrl',
      'connectStore',
      'deadline',
      'isKeyFailure',
      'parseStoreUrl',
      'probeAccess',
      'raceSignal',
      'readWindow',
      'realClock',
      'redactStoreUrl',
      'silentLogger',
      'sleep',
      'withDeadline',
      'writeMoving',
    ]);
  });

  it('the testing entry exports exactly the test doubles, the local Redis Cluster and the local Sentinel deployment', async () => {
    expect(Object.keys(await import('../src/testing.js')).sort()).toEqual([
      'FaultInjector',
      'FaultyKV',
      'LOOPBACK_HOST',
      'LocalEtcd',
      'LocalPostgres',
      'LocalRedisCluster',
      'LocalRedisSentinel',
      'MemoryLogger',
      'SeededRandom',
      'VirtualClock',
      'formatOperation',
      'freeLoopbackPort',
      'redisCommand',
      'waitFor',
    ]);
  });

  it('the etcd entry exports EtcdKV and its URL parser', async () => {
    expect(Object.keys(await import('../src/etcd.js')).sort()).toEqual(['EtcdKV', 'parseEtcdUrl', 'redactEtcdUrl']);
  });

  it('the package resolves the etcd subpath to its built entry, apart from the main entry', async () => {
    const etcd = await import('@roster/kv-adapter/etcd');
    expect(typeof etcd.EtcdKV).toBe('function');
    expect('EtcdKV' in (await import('@roster/kv-adapter'))).toBe(false);
  });

  it('the postgres entry exports PostgresKV and its URL parser, and loads no driver until connect', async () => {
    expect(Object.keys(await import('../src/postgres.js')).sort()).toEqual(['PostgresKV', 'parsePostgresUrl']);
  });

  it('the package resolves the testing subpath to its built entry', async () => {
    const testing = await import('@roster/kv-adapter/testing');
    expect(typeof testing.VirtualClock).toBe('function');
    expect('VirtualClock' in (await import('@roster/kv-adapter'))).toBe(false);
  });
});
