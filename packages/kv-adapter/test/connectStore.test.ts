import { describe, expect, it } from 'vitest';
import { checkStoreUrl, ConfigError, connectStore } from '../src/index.js';

describe('checkStoreUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'redis'],
    ['rediss://app:s3cret@redis.internal:6380/2', 'redis'],
    ['127.0.0.1:7000,127.0.0.1:7001', 'redis'],
    ['redis://a:7000,redis://b:7000', 'redis'],
    ['localhost', 'redis'],
    ['postgres://roster:s3cret@db.internal:5432/app', 'postgres'],
    ['postgresql://roster@db.internal/app?sslmode=require&table=roster_kv', 'postgres'],
    ['POSTGRES://roster@[::1]/app', 'postgres'],
    ['mysql://roster:s3cret@db.internal:3306/app?ssl=verify-full', 'mysql'],
    ['mariadb://roster@db.internal/app?table=roster_kv', 'mysql'],
    ['redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster', 'redis-sentinel'],
    ['rediss+sentinel://:s3cret@s1/mymaster/2', 'redis-sentinel'],
    ['etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379', 'etcd'],
    ['etcds://roster:s3cret@etcd.internal/teams/billing', 'etcd'],
  ])('%s selects the %s backend', (url, backend) => {
    expect(checkStoreUrl(url).backend).toBe(backend);
  });

  it('redacts the password of every form', () => {
    expect(checkStoreUrl('postgres://roster:s3cret@db/app').redacted).toBe('postgres://roster:***@db/app');
    expect(checkStoreUrl('etcd://roster:s3cret@h:1,h:2/app').redacted).toBe('etcd://roster:***@h:1,h:2/app');
    expect(checkStoreUrl('redis://a:b@h:1,redis://a:b@i:2').redacted).toBe('redis://a:***@h:1,redis://a:***@i:2');
    expect(checkStoreUrl('redis+sentinel://a:b@h:1,i:2/m').redacted).toBe('redis+sentinel://a:***@h:1,i:2/m');
  });

  it.each([
    ['', /non-empty/],
    ['ftp://h', /scheme to be one of .*`postgres:\/\/`/],
    ['postgres://db/app', /user name/],
    ['postgres://u@db/app?sslmode=maybe', /sslmode/],
    ['postgres://u@db/app?password=x', /only the parameters/],
    ['postgres://u@a,b/app', /one PostgreSQL host/],
    ['postgres://u@db:99999/app', /port|PostgreSQL URL/],
    ['mysql://u@db', /database/],
    ['mysql://u@db/app?ssl=maybe', /ssl/],
    ['redis+sentinel://h:26379', /master name is missing/],
    ['etcd://h:1,,h:2', /etcd URL/],
    ['etcd://:pw@h:1', /user name/],
  ])('refuses %j with ConfigError(store)', (url, message) => {
    let caught: unknown;
    try {
      checkStoreUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.is(caught) && caught.field === 'store').toBe(true);
    expect((caught as Error).message).toMatch(message);
  });

  it('never shows a password in its errors', () => {
    expect(() => checkStoreUrl('postgres://u:hunter2@db/app?sslmode=maybe')).toThrow(/u:\*\*\*@db/);
    expect(() => checkStoreUrl('postgres://u:hunter2@db/app?sslmode=maybe')).not.toThrow(/hunter2/);
    expect(() => checkStoreUrl('gopher://u:hunter2@db')).not.toThrow(/hunter2/);
  });
});

describe('connectStore', () => {
  it('refuses an invalid URL before connecting', async () => {
    await expect(connectStore('ftp://h')).rejects.toMatchObject({ code: 'CONFIG_INVALID', field: 'store' });
  });

  it('opens an etcd URL with EtcdKV (an unreachable one is a StoreUnavailableError)', async () => {
    await expect(connectStore('etcd://127.0.0.1:1,127.0.0.1:2', { connectTimeoutMs: 200 })).rejects.toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
  });

  it('opens a Redis URL with RedisKV (an unreachable one is a StoreUnavailableError)', async () => {
    await expect(connectStore('redis://127.0.0.1:1', { connectTimeoutMs: 200 })).rejects.toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
  });

  it('opens a Sentinel URL with RedisKV (no sentinel answering is a StoreUnavailableError)', async () => {
    await expect(connectStore('redis+sentinel://127.0.0.1:1/mymaster', { connectTimeoutMs: 300 })).rejects.toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
  });
});
