/**
 * `@roster/kv-adapter/nats`: {@link NatsKV}, Roster's store on a NATS JetStream key-value bucket,
 * through the official v3 clients. `@nats-io/transport-node`, `@nats-io/jetstream` and
 * `@nats-io/kv` are optional peer dependencies of `@roster/kv-adapter`: install them to use this
 * entry. `connectStore('nats://…')` from the main entry loads this entry.
 *
 * @example
 * ```ts
 * import { NatsKV } from '@roster/kv-adapter/nats';
 *
 * const kv = await NatsKV.connect({ url: 'nats://127.0.0.1:4222/my-app' });
 * console.log(await kv.time()); // the JetStream timestamp of a write, in ms since the epoch
 * await kv.close();
 * ```
 *
 * @packageDocumentation
 */
export { NatsKV, type NatsKVOptions, type NatsKVConnectOptions } from './nats/NatsKV.js';
export { parseNatsUrl, redactNatsUrl, type ParsedNatsUrl, type NatsEndpoint } from './nats/parseNatsUrl.js';
