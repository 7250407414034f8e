/**
 * `@roster/kv-adapter/etcd`: {@link EtcdKV}, Roster's store on etcd v3, through etcd's own JSON
 * gateway over HTTP (no client library, no install script).
 *
 * @example
 * ```ts
 * import { EtcdKV } from '@roster/kv-adapter/etcd';
 * const kv = await EtcdKV.connect({ url: 'etcd://127.0.0.1:2379/my-app' });
 * ```
 *
 * @packageDocumentation
 */
export { EtcdKV, type EtcdKVOptions, type EtcdKVConnectOptions } from './etcd/EtcdKV.js';
export { parseEtcdUrl, redactEtcdUrl, type ParsedEtcdUrl, type EtcdEndpoint } from './etcd/parseEtcdUrl.js';
