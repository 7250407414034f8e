/**
 * `@roster/kv-adapter/redis`: {@link RedisKV}, Roster's store on Redis (one server, Redis Cluster,
 * Redis Sentinel), through ioredis. `ioredis` is an optional peer dependency of
 * `@roster/kv-adapter`: install it to use this entry (`npm install ioredis`). `connectStore('redis://…')`
 * from the main entry loads this entry, and only then.
 *
 * @example
 * ```ts
 * import { RedisKV } from '@roster/kv-adapter/redis';
 *
 * const kv = await RedisKV.connect({ url: 'rediss://roster:s3cret@redis.internal:6380' });
 * console.log(await kv.time()); // the server's TIME, in ms since the epoch
 * await kv.close();
 * ```
 *
 * @packageDocumentation
 */
export { RedisKV, type RedisKVOptions, type RedisKVConnectOptions } from './redis/RedisKV.js';
export {
  parseStoreUrl,
  type ParsedStoreUrl,
  type ParsedSingleStoreUrl,
  type ParsedClusterStoreUrl,
  type ParsedSentinelStoreUrl,
  type StoreAddress,
} from './redis/parseStoreUrl.js';
