import { describe, expect, it } from 'vitest';
import { MemoryKV } from '@roster/kv-adapter';
import { createCluster, type ClusterOptions } from '../src/index.js';

function configError(options: unknown): { code: string; field: string } {
  try {
    createCluster(options as ClusterOptions);
  } catch (error) {
    return error as { code: string; field: string };
  }
  throw new Error('expected a ConfigError');
}

describe('createCluster() options', () => {
  it('defaults as libcluster: env production, a dashless UUID id, one thread', () => {
    const cluster = createCluster({ key: 'app', registry: new MemoryKV() });
    expect(cluster.env).toBe('production');
    expect(cluster.id).toMatch(/^[0-9a-f]{32}$/);
    expect(cluster.threads).toBe(1);
    expect(cluster.mode).toBe('dynamic');
    expect(cluster.state).toBe('idle');
  });

  it.each([
    [{ registry: new MemoryKV() }, 'key'],
    [{ key: 'a b', registry: new MemoryKV() }, 'key'],
    [{ key: 'app', env: 'dev/x', registry: new MemoryKV() }, 'env'],
    [{ key: 'app', instanceId: 'has space', registry: new MemoryKV() }, 'instanceId'],
    [{ key: 'app', instanceId: 'x'.repeat(129), registry: new MemoryKV() }, 'instanceId'],
    [{ key: 'app', instanceId: 7, registry: new MemoryKV() }, 'instanceId'],
    [{ key: 'app', threads: 0, registry: new MemoryKV() }, 'threads'],
    [{ key: 'app', threads: 1_000_001, registry: new MemoryKV() }, 'threads'],
    [{ key: 'app', threads: 1.5, registry: new MemoryKV() }, 'threads'],
    [{ key: 'app' }, 'registry'],
    [{ key: 'app', registry: 42 }, 'registry'],
    [{ key: 'app', registry: 'http://127.0.0.1:2379/' }, 'registry'],
    [{ key: 'app', registry: new MemoryKV(), static: { index: 0, total: 1 } }, 'static'],
    [{ key: 'app', static: { index: 0, total: 0 } }, 'static.total'],
    [{ key: 'app', static: { index: -1, total: 3 } }, 'static.index'],
    [{ key: 'app', threads: 2, static: { index: 2, total: 3 } }, 'static.index'],
    [{ key: 'app', registry: new MemoryKV(), intervalMs: 100, timeoutMs: 200 }, 'timeoutMs'],
    [{ key: 'app', registry: new MemoryKV(), onRebalance: 'no' }, 'onRebalance'],
  ])('%o is refused with a ConfigError on `%s`', (options, field) => {
    expect(configError(options)).toMatchObject({ code: 'CONFIG_INVALID', field });
  });

  it('accepts the longest node id and the most threads a Roster member may carry', () => {
    const cluster = createCluster({ key: 'app', instanceId: `a.b_c@d-${'x'.repeat(120)}`, threads: 1_000_000, registry: new MemoryKV() });
    expect(cluster.id).toHaveLength(128);
    expect(cluster.threads).toBe(1_000_000);
  });

  it('redacts the password of a bad registry URL', () => {
    const error = configError({ key: 'app', registry: 'http://user:s3cret@host:1/' }) as unknown as Error & { value: string };
    expect(error.value).not.toContain('s3cret');
    expect(error.message).not.toContain('s3cret');
  });
});
