/**
 * `@roster/kv-adapter/mysql`: {@link MySQLKV}, Roster's store on MySQL 8 or MariaDB, through
 * mysql2. `mysql2` is an optional peer dependency of `@roster/kv-adapter`: install it to use this
 * entry (`npm install mysql2`). `connectStore('mysql://…')` (or `mariadb://…`) from the main entry
 * loads this entry.
 *
 * @example
 * ```ts
 * import { MySQLKV } from '@roster/kv-adapter/mysql';
 *
 * const kv = await MySQLKV.connect({ url: 'mysql://roster:s3cret@db.internal:3306/app', table: 'roster_kv' });
 * console.log(await kv.time()); // the server's UTC_TIMESTAMP(6), in ms since the epoch
 * await kv.close();
 * ```
 *
 * @packageDocumentation
 */
export { MySQLKV, type MySQLKVOptions, type MySQLKVConnectOptions } from './mysql/MySQLKV.js';
export { parseMySQLUrl, type ParsedMySQLUrl, type MySQLSslMode } from './mysql/parseMySQLUrl.js';
