import { describe, expect, it } from 'vitest';
import { MemoryKV, probeAccess, type KV, StoreAccessError, StoreUnavailableError } from '../src/index.js';
import { accessDenied } from '../src/backend/accessDenied.js';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { mapRedisError } from '../src/redis/mapError.js';

function reply(message: string): Error {
  const error = new Error(message);
  error.name = 'ReplyError';
  return error;
}

describe('accessDenied', () => {
  it('names the TLS verification failures and handshake refusals that no retry can fix, with their code', () => {
    const expired = Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' });
    expect(accessDenied(expired)).toBe('TLS: certificate has expired (CERT_HAS_EXPIRED)');
    const wrongCa = Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
    expect(accessDenied(wrongCa)).toContain('SELF_SIGNED_CERT_IN_CHAIN');
    const required = Object.assign(
      new Error('80CC:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../ssl/record/rec_layer_s3.c:1601:SSL alert number 116\n'),
      { code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' },
    );
    expect(accessDenied(required)).toBe('TLS: tlsv13 alert certificate required (ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED)');
  });

  it('names WRONGPASS, NOAUTH and NOPERM replies, also in the cause chain, and nothing else', () => {
    expect(accessDenied(reply('WRONGPASS invalid username-password pair or user is disabled.'))).toMatch(/^WRONGPASS/);
    expect(accessDenied(new StoreUnavailableError('x', { cause: reply("NOPERM this user has no permissions to run the 'set' command") }))).toMatch(/^NOPERM/);
    expect(accessDenied(reply('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBeUndefined();
    expect(accessDenied(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    expect(accessDenied('NOPERM as a string')).toBeUndefined();
  });

  it("reads the last sentinel's refusal from ioredis' text-only `All sentinels are unreachable` error; a sentinel down is not a refusal", () => {
    const all = (last: string): Error => new Error(`All sentinels are unreachable. Retrying from scratch after 50ms. Last error: ${last}`);
    expect(accessDenied(all('NOAUTH Authentication required.'))).toBe('sentinel: NOAUTH Authentication required.');
    expect(accessDenied(all('WRONGPASS invalid username-password pair or user is disabled.'))).toMatch(/^sentinel: WRONGPASS/);
    expect(accessDenied(all('self-signed certificate in certificate chain'))).toBe('sentinel: TLS: self-signed certificate in certificate chain');
    expect(accessDenied(all('connect ECONNREFUSED 127.0.0.1:26379'))).toBeUndefined();
    expect(accessDenied(all('Connection is closed.'))).toBeUndefined();
  });

  it('a NOPERM at run time maps to StoreUnavailableError: the store cannot serve this client until the permission is back', () => {
    const error = mapRedisError(reply("NOPERM this user has no permissions to run the 'evalsha' command"), { backend: 'RedisKV', operation: 'compareAndSet', key: 'k', closed: false, shardScoped: false });
    expect(StoreUnavailableError.is(error)).toBe(true);
  });
});

describe('probeAccess', () => {
  it('runs every operation on the probe key and leaves nothing behind on a store that allows them', async () => {
    const kv = new MemoryKV();
    await probeAccess(kv, 'roster/k/e/probe/a');
    expect(await kv.get('roster/k/e/probe/a')).toBeNull();
  });

  it('throws StoreAccessError naming the key when the store refuses an operation', async () => {
    const kv = new MemoryKV();
    // A store whose user may do everything but a plain SET.
    const refusing: KV = {
      name: 'refusing',
      capabilities: kv.capabilities,
      get: (key, o) => kv.get(key, o),
      set: () => Promise.reject(new StoreUnavailableError('set', { cause: reply("NOPERM this user has no permissions to run the 'set' command") })),
      delete: (key, o) => kv.delete(key, o),
      append: (key, v, o) => kv.append(key, v, o),
      take: (key, o) => kv.take(key, o),
      getRange: (key, s, e, o) => kv.getRange(key, s, e, o),
      exchange: (key, v, o) => kv.exchange(key, v, o),
      compareAndSet: (key, e, v, o) => kv.compareAndSet(key, e, v, o),
      time: (o) => kv.time(o),
      close: () => kv.close(),
    };
    const error = await probeAccess(refusing, 'roster/k/e/probe/a').catch((e: unknown) => e);
    expect(StoreAccessError.is(error)).toBe(true);
    expect((error as Error).message).toContain('roster/k/e/probe/a: NOPERM');
  });

  it('moves to another probe key when its key is unavailable (a dead cluster shard), and resolves without a verdict when every one is', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const faults = new FaultInjector({ clock, seed: 1 });
    const kv = faults.view(store);
    faults.keyUnavailable('roster/k/e/probe/a', {});
    await probeAccess(kv, 'roster/k/e/probe/a');
    expect(faults.operations().some((o) => o.key === 'roster/k/e/probe/a 1' && o.op === 'delete' && o.outcome === 'ok')).toBe(true);
    faults.keyUnavailable({ prefix: 'roster/k/e/probe/a' }, {});
    await expect(probeAccess(kv, 'roster/k/e/probe/a')).resolves.toBeUndefined();
    expect(store.keys()).toEqual([]);
  });
});
