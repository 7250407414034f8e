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
    const cluster = createCluster({ group: 'app', store: new MemoryKV() });
    expect(cluster.env).toBe('production');
    expect(cluster.id).toMatch(/^[0-9a-f]{32}$/);
    expect(cluster.threads).toBe(1);
    expect(cluster.mode).toBe('dynamic');
    expect(cluster.state).toBe('idle');
  });

  it.each([
    [{ store: new MemoryKV() }, 'group'],
    [{ group: 'a b', store: new MemoryKV() }, 'group'],
    [{ group: 'app', env: 'dev/x', store: new MemoryKV() }, 'env'],
    [{ group: 'app', id: 'has space', store: new MemoryKV() }, 'id'],
    [{ group: 'app', id: 'x'.repeat(129), store: new MemoryKV() }, 'id'],
    [{ group: 'app', id: 7, store: new MemoryKV() }, 'id'],
    [{ group: 'app', threads: 0, store: new MemoryKV() }, 'threads'],
    [{ group: 'app', threads: 1_000_001, store: new MemoryKV() }, 'threads'],
    [{ group: 'app', threads: 1.5, store: new MemoryKV() }, 'threads'],
    [{ group: 'app' }, 'store'],
    [{ group: 'app', store: 42 }, 'store'],
    [{ group: 'app', store: 'http://127.0.0.1:2379/' }, 'store'],
    [{ group: 'app', store: new MemoryKV(), static: { index: 0, total: 1 } }, 'static'],
    [{ group: 'app', static: { index: 0, total: 0 } }, 'static.total'],
    [{ group: 'app', static: { index: -1, total: 3 } }, 'static.index'],
    [{ group: 'app', threads: 2, static: { index: 2, total: 3 } }, 'static.index'],
    [{ group: 'app', store: new MemoryKV(), intervalMs: 100, timeoutMs: 200 }, 'timeoutMs'],
    [{ group: 'app', store: new MemoryKV(), onRebalance: 'no' }, 'onRebalance'],
  ])('%o is refused with a ConfigError on `%s`', (options, field) => {
    expect(configError(options)).toMatchObject({ code: 'CONFIG_INVALID', field });
  });

  it('accepts the longest node id and the most threads a Roster member may carry', () => {
    const cluster = createCluster({ group: 'app', id: `a.b_c@d-${'x'.repeat(120)}`, threads: 1_000_000, store: new MemoryKV() });
    expect(cluster.id).toHaveLength(128);
    expect(cluster.threads).toBe(1_000_000);
  });

  it('redacts the password of a bad store URL', () => {
    const error = configError({ group: 'app', store: 'http://user:s3cret@host:1/' }) as unknown as Error & { value: string };
    expect(error.value).not.toContain('s3cret');
    expect(error.message).not.toContain('s3cret');
  });
});
