/**
 * `@roster/kv-adapter/postgres`: {@link PostgresKV}, Roster's store on PostgreSQL, through
 * node-postgres. `pg` is an optional peer dependency of `@roster/kv-adapter`: install it to use this
 * entry (`npm install pg`). `connectStore('postgres://…')` from the main entry loads this entry.
 *
 * @example
 * ```ts
 * import { PostgresKV } from '@roster/kv-adapter/postgres';
 *
 * const kv = await PostgresKV.connect({ url: 'postgres://roster:s3cret@db.internal:5432/app', table: 'roster_kv' });
 * console.log(await kv.time()); // the database's clock_timestamp(), in ms since the epoch
 * await kv.close();
 * ```
 *
 * @packageDocumentation
 */
export { PostgresKV, type PostgresKVOptions, type PostgresKVConnectOptions } from './postgres/PostgresKV.js';
export { parsePostgresUrl, type ParsedPostgresUrl, type PostgresSslMode } from './postgres/parsePostgresUrl.js';
