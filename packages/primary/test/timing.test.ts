import { describe, expect, it } from 'vitest';
import { ConfigError, MemoryKV, Namespace } from '@roster/kv-adapter';
import { PrimaryContender, PrimaryResolver } from '../src/index.js';
import { resolveTiming } from '../src/timing.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (ConfigError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('timing parameters', () => {
  it('default to the seed’s I = 1 s and T = 5 s', () => {
    expect(resolveTiming()).toEqual({ intervalMs: 1000, timeoutMs: 5000 });
  });

  it('require T > 2I, naming `timeoutMs` and the interval', () => {
    const error = configError(() => resolveTiming({ intervalMs: 100, timeoutMs: 200 }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.field).toBe('timeoutMs');
    expect(error.value).toBe(200);
    expect(error.message).toBe('config: Expected `timeoutMs` to be greater than twice `intervalMs` (100), got 200');
    expect(resolveTiming({ intervalMs: 100, timeoutMs: 201 })).toEqual({ intervalMs: 100, timeoutMs: 201 });
  });

  it.each([
    [{ intervalMs: 0 }, 'intervalMs'],
    [{ intervalMs: -1 }, 'intervalMs'],
    [{ intervalMs: Number.NaN }, 'intervalMs'],
    [{ intervalMs: '1000' as unknown as number }, 'intervalMs'],
    [{ timeoutMs: Number.POSITIVE_INFINITY }, 'timeoutMs'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ intervalMs: 3000 }, 'timeoutMs'],
  ])('rejects %j with a ConfigError on `%s`', (timing, field) => {
    expect(configError(() => resolveTiming(timing)).field).toBe(field);
  });

  it('are validated up front by the contender and the resolver, as are utype and endpoint', () => {
    const kv = new MemoryKV();
    const namespace = new Namespace('c', 'e');
    expect(configError(() => new PrimaryContender({ store: kv, namespace, utype: 'a', intervalMs: 10, timeoutMs: 20 })).field).toBe('timeoutMs');
    expect(configError(() => new PrimaryResolver({ store: kv, namespace, intervalMs: 10, timeoutMs: 15 })).field).toBe('timeoutMs');
    expect(configError(() => new PrimaryContender({ store: kv, namespace, utype: 'a b' })).field).toBe('utype');
    expect(configError(() => new PrimaryContender({ store: kv, namespace, utype: '' })).field).toBe('utype');
    expect(configError(() => new PrimaryContender({ store: kv, namespace, utype: 'a', endpoint: 'x'.repeat(1025) })).field).toBe('endpoint');
    expect(configError(() => new PrimaryContender({ store: kv, namespace, utype: 'a', generateId: () => 'not an id' })).field).toBe('generateId');
  });
});
