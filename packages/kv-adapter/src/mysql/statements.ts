/**
 * The SQL of MySQLKV, for MariaDB and MySQL 8 alike: one statement per KV operation where one
 * suffices, and a transaction sent in one round trip where a value must be read and replaced
 * atomically (`take`, `exchange`). The table is `key VARBINARY(3072) PRIMARY KEY, value LONGBLOB
 * NOT NULL, expires_at BIGINT` (ms since the epoch on the server's clock, NULL for none); a row
 * whose `expires_at` has passed reads as absent and is overwritten as absent. Values are binary so
 * that lengths and ranges are in UTF-8 bytes, as on Redis.
 *
 * The clock is `UTC_TIMESTAMP(6)`, which the server reads once per statement, so every use of it
 * in one statement (the stamp, the expiry, the liveness test) agrees. Statements that must tell
 * that reading, or a length, back without a second statement pass it through
 * `LAST_INSERT_ID(expr)`: the server returns `expr` as the statement's insert id in its OK packet
 * (the documented sequence idiom), and 0 when the expression was not evaluated.
 */

/** The server family, for the per-statement timeout syntax. */
export type MySQLFlavour = 'mariadb' | 'mysql';

/** The server's clock in ms since the epoch: microseconds from UTC_TIMESTAMP(6), no time zone involved. */
export const NOW_MS = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
/** A live row: no expiry, or one still ahead of the statement's clock reading. */
const LIVE = `(expires_at IS NULL OR expires_at > ${NOW_MS})`;

/** Every statement of MySQLKV on one table; `?` are mysql2's escaped values, in the order given. */
export interface Statements {
  /** Params: table name. */
  readonly tableExists: string;
  readonly createTable: string;
  /** Params: max value bytes, key. */
  readonly get: string;
  /** Params: key, value, ttl ms or NULL. */
  readonly set: string;
  /** Params: key. affectedRows: 1 when a live row was deleted. */
  readonly delete: string;
  /** Params: key, value, max value bytes. insertId: 0 inserted, else the new length + 1 (over the limit: refused). */
  readonly append: string;
  /** Params: max value bytes, key, key. Results: [BEGIN, rows of the row, DELETE, COMMIT]. */
  readonly take: string;
  /** Params: start ×3, end ×3, key. */
  readonly getRange: string;
  /** Params: key, max value bytes, key, value, key. Results: [placeholder INSERT, BEGIN, rows, UPDATE, COMMIT]. */
  readonly exchange: string;
  /** Params: key, the value's parts, ttl. affectedRows 1: inserted; insertId: the stamp. */
  casInsert(parts: number): string;
  /** Params: the value's parts, ttl, key. affectedRows 1: replaced an expired row; insertId: the stamp. */
  casExpired(parts: number): string;
  /** Params: the value's parts, ttl, key, expected. */
  casEqual(parts: number): string;
  /** Params: the value's parts, ttl, key, expected, expected. */
  casPrefix(parts: number): string;
  /** Params: max value bytes, key. The live value and the clock. */
  readonly current: string;
  readonly time: string;
  readonly sweep: string;
}

/**
 * The statements on `table` (already checked: `[a-z_][a-z0-9_]*`, optionally `database.table`),
 * each bounded on the server by `timeoutMs`: MariaDB's `SET STATEMENT max_statement_time=…,
 * innodb_lock_wait_timeout=… FOR`, MySQL's `MAX_EXECUTION_TIME` hint on SELECTs (MySQL bounds no
 * other statement per statement; the client's timeout bounds them). Per statement, never as
 * session state, so a pooled connection (or a proxy's) carries nothing from one operation to the next.
 */
export function statements(table: string, flavour: MySQLFlavour, timeoutMs: number): Statements {
  const t = table
    .split('.')
    .map((part) => `\`${part}\``)
    .join('.');
  const [schema, name] = table.includes('.') ? table.split('.') : [undefined, table];
  const bound = bounder(flavour, timeoutMs);
  const one = (sql: string): string => bound(sql.replace(/\s+/g, ' ').trim());
  /** The new value: its parts joined by the stamp (`LAST_INSERT_ID` of it, so it comes back). */
  const stamped = (parts: number): string =>
    parts === 1 ? '?' : `CONCAT(${Array.from({ length: parts }, () => '?').join(`, LAST_INSERT_ID(${NOW_MS}), `)})`;
  /** The expiry of a compare-and-set; it also passes the clock reading back when the value has no stamp. */
  const casExpiry = `IF(LAST_INSERT_ID(${NOW_MS}) IS NULL, NULL, ${NOW_MS} + ?)`;
  // In an UPDATE (and ON DUPLICATE KEY UPDATE) assignments run left to right, each seeing the ones
  // before: `value` is always assigned first, so `expires_at` still holds the old expiry when
  // `value`'s expression tests liveness.
  const casUpdate = (parts: number, match: string): string => one(`UPDATE ${t} SET value = ${stamped(parts)}, expires_at = ${casExpiry} WHERE \`key\` = ? AND ${LIVE} AND ${match}`);
  const read = `IF(LENGTH(value) > ?, NULL, value) AS value, LENGTH(value) AS size`;
  return {
    tableExists: `SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ${schema === undefined ? 'DATABASE()' : `'${schema}'`} AND table_name = '${name}'`,
    createTable: `CREATE TABLE IF NOT EXISTS ${t} (\`key\` VARBINARY(3072) NOT NULL PRIMARY KEY, value LONGBLOB NOT NULL, expires_at BIGINT NULL) ENGINE=InnoDB`,
    get: one(`SELECT ${read} FROM ${t} WHERE \`key\` = ? AND ${LIVE}`),
    set: one(`INSERT INTO ${t} (\`key\`, value, expires_at) VALUES (?, ?, ${NOW_MS} + ?) ON DUPLICATE KEY UPDATE value = VALUES(value), expires_at = VALUES(expires_at)`),
    delete: one(`DELETE FROM ${t} WHERE \`key\` = ? AND ${LIVE}`),
    append: one(
      `INSERT INTO ${t} (\`key\`, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE
         value = IF(LAST_INSERT_ID(IF(${LIVE}, LENGTH(value), 0) + LENGTH(VALUES(value)) + 1) > ? + 1, value,
                    IF(${LIVE}, CONCAT(value, VALUES(value)), VALUES(value))),
         expires_at = IF(${LIVE}, expires_at, NULL)`,
    ),
    take: [
      'START TRANSACTION',
      one(`SELECT ${read}, ${LIVE} AS live FROM ${t} WHERE \`key\` = ? FOR UPDATE`),
      one(`DELETE FROM ${t} WHERE \`key\` = ?`),
      'COMMIT',
    ].join('; '),
    getRange: one(
      `SELECT CASE WHEN f > l THEN X'' ELSE SUBSTRING(value, f + 1, l - f + 1) END AS value FROM (
         SELECT value,
           CASE WHEN ? < 0 THEN GREATEST(0, LENGTH(value) + ?) ELSE ? END AS f,
           LEAST(LENGTH(value) - 1, CASE WHEN ? < 0 THEN LENGTH(value) + ? ELSE ? END) AS l
         FROM ${t} WHERE \`key\` = ? AND ${LIVE}) s`,
    ),
    // An expired placeholder row first (outside the transaction), so that the locking read below
    // always finds a row: a locking read of an absent key takes a gap lock, and two of them
    // followed by two inserts deadlock.
    exchange: [
      one(`INSERT IGNORE INTO ${t} (\`key\`, value, expires_at) VALUES (?, X'', 0)`),
      'START TRANSACTION',
      one(`SELECT ${read}, ${LIVE} AS live FROM ${t} WHERE \`key\` = ? FOR UPDATE`),
      one(`UPDATE ${t} SET value = ?, expires_at = NULL WHERE \`key\` = ?`),
      'COMMIT',
    ].join('; '),
    casInsert: (parts) => one(`INSERT IGNORE INTO ${t} (\`key\`, value, expires_at) VALUES (?, ${stamped(parts)}, ${casExpiry})`),
    casExpired: (parts) => one(`UPDATE ${t} SET value = ${stamped(parts)}, expires_at = ${casExpiry} WHERE \`key\` = ? AND NOT ${LIVE}`),
    casEqual: (parts) => casUpdate(parts, 'value = ?'),
    casPrefix: (parts) => casUpdate(parts, 'SUBSTRING(value, 1, LENGTH(?)) = ?'),
    current: one(`SELECT ${NOW_MS} AS ms, r.value, r.size FROM (SELECT 1) AS one LEFT JOIN (SELECT ${read} FROM ${t} WHERE \`key\` = ? AND ${LIVE}) AS r ON TRUE`),
    time: one(`SELECT ${NOW_MS} AS ms`),
    sweep: one(`DELETE FROM ${t} WHERE expires_at <= ${NOW_MS} LIMIT 1000`),
  };
}

/** Prefixes a statement with its server-side bound, in the flavour's syntax. */
function bounder(flavour: MySQLFlavour, timeoutMs: number): (sql: string) => string {
  const ms = Math.max(1, Math.ceil(timeoutMs));
  if (flavour === 'mariadb') {
    // max_statement_time in seconds (fractions allowed); the lock wait in whole seconds, at least 1:
    // max_statement_time ends a shorter wait first.
    const prefix = `SET STATEMENT max_statement_time=${(ms / 1000).toFixed(3)}, innodb_lock_wait_timeout=${Math.max(1, Math.ceil(ms / 1000))} FOR `;
    return (sql) => prefix + sql;
  }
  return (sql) => (sql.startsWith('SELECT ') ? `SELECT /*+ MAX_EXECUTION_TIME(${ms}) */ ${sql.slice(7)}` : sql);
}
