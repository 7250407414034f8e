/**
 * The SQL of PostgresKV: one statement per KV operation, each atomic on its own (no transaction
 * spans two statements). The table is `key text PRIMARY KEY, value bytea NOT NULL, expires_at
 * timestamptz`; a row whose `expires_at` has passed reads as absent and is overwritten as absent.
 * Values are bytea so that lengths and ranges are in UTF-8 bytes, as on Redis.
 */

/** A statement's text, its parameters written `$1`, `$2`, … (see {@link render}). */
export interface Statement {
  readonly text: string;
}

/** A parameter of a {@link Statement}: text, bytes, an array of bytes, a finite number or null. */
export type Parameter = string | Buffer | readonly Buffer[] | number | null;

/** Every statement of PostgresKV, on one table. */
export interface Statements {
  readonly tableExists: string;
  readonly createTable: string;
  readonly get: Statement;
  readonly set: Statement;
  readonly delete: Statement;
  readonly append: Statement;
  readonly size: Statement;
  readonly take: Statement;
  readonly getRange: Statement;
  readonly exchangeUpdate: Statement;
  readonly exchangeInsert: Statement;
  readonly casAbsent: Statement;
  readonly casEqual: Statement;
  readonly casPrefix: Statement;
  readonly time: Statement;
  readonly sweep: Statement;
}

/** A live row: not expired at the statement's clock reading. */
const live = (row: string, at = 'clock_timestamp()'): string => `(${row}.expires_at IS NULL OR ${row}.expires_at > ${at})`;
/** Milliseconds since the epoch of a timestamptz, as bigint. */
const ms = (ts: string): string => `floor(extract(epoch FROM ${ts}) * 1000)::bigint`;
/** A TTL parameter (ms, or NULL) as an expiry from `ts`. */
const expiry = (ttl: string, ts = 'clock_timestamp()'): string => `${ts} + ${ttl}::float8 * interval '1 millisecond'`;

/**
 * The statements on `table`, an identifier already checked by the caller (`[a-z_][a-z0-9_]*`,
 * optionally `schema.table`).
 */
export function statements(table: string): Statements {
  const t = table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
  const statement = (text: string): Statement => ({ text: text.replace(/\s+/g, ' ').trim() });
  // The compare-and-set statements: one clock reading stamps the value, decides expiry and is returned.
  // $1 key, $2 the new value split at the stamp token (bytea[]), $3 ttl ms or NULL, $4 expected.
  const stamped = `
    WITH now AS (SELECT clock_timestamp() AS ts),
    stamp AS (SELECT ts, ${ms('ts')} AS ms FROM now),
    new AS (
      SELECT stamp.ts,
        (SELECT string_agg(part, convert_to(stamp.ms::text, 'UTF8') ORDER BY n) FROM unnest($2::bytea[]) WITH ORDINALITY AS u(part, n)) AS value
      FROM stamp
    )`;
  const casResult = (write: string): string => `${stamped}, done AS (${write} RETURNING r.value)
    SELECT stamp.ms::text AS ms, EXISTS (SELECT 1 FROM done) AS swapped, (SELECT value FROM done) AS value FROM stamp`;
  const casUpdate = (match: string): string =>
    casResult(`UPDATE ${t} AS r SET value = new.value, expires_at = ${expiry('$3', 'new.ts')} FROM new
      WHERE r.key = $1 AND ${live('r', 'new.ts')} AND ${match}`);
  return {
    // Looked up first: CREATE … IF NOT EXISTS needs the CREATE privilege even when the table exists.
    tableExists: `SELECT to_regclass('${t.replace(/'/g, "''")}') IS NOT NULL AS exists`,
    createTable: `CREATE TABLE IF NOT EXISTS ${t} (key text PRIMARY KEY, value bytea NOT NULL, expires_at timestamptz)`,
    // $1 key, $2 max value bytes: a value over the limit is not sent, only its size.
    get: statement(`SELECT CASE WHEN length(value) > $2 THEN NULL ELSE value END AS value, length(value) AS size FROM ${t} r WHERE key = $1 AND ${live('r')}`),
    set: statement(`INSERT INTO ${t} (key, value, expires_at) VALUES ($1, $2, ${expiry('$3')})
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    ),
    delete: statement(`DELETE FROM ${t} r WHERE key = $1 RETURNING ${live('r')} AS live`),
    // $1 key, $2 the value to append, $3 max value bytes: an append past the limit changes nothing.
    append: statement(`INSERT INTO ${t} AS r (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN ${live('r')} THEN r.value || excluded.value ELSE excluded.value END,
         expires_at = CASE WHEN ${live('r')} THEN r.expires_at ELSE NULL END
       WHERE (CASE WHEN ${live('r')} THEN length(r.value) ELSE 0 END) + length(excluded.value) <= $3
       RETURNING length(value) AS size`,
    ),
    size: statement(`SELECT length(value) AS size FROM ${t} r WHERE key = $1 AND ${live('r')}`),
    take: statement(`DELETE FROM ${t} r WHERE key = $1 RETURNING CASE WHEN length(value) > $2 THEN NULL ELSE value END AS value, length(value) AS size, ${live('r')} AS live`),
    // $1 key, $2 start, $3 end (bytes, inclusive, negative from the end), as Redis GETRANGE.
    getRange: statement(`SELECT CASE WHEN f > l THEN ''::bytea ELSE substring(value FROM (f + 1)::int FOR (l - f + 1)::int) END AS value FROM (
         SELECT value,
           CASE WHEN $2::bigint < 0 THEN greatest(0, length(value) + $2::bigint) ELSE $2::bigint END AS f,
           least(length(value) - 1, CASE WHEN $3::bigint < 0 THEN length(value) + $3::bigint ELSE $3::bigint END) AS l
         FROM ${t} r WHERE key = $1 AND ${live('r')}) s`,
    ),
    // Exchange: the row locked and read by the subquery is the one updated, so the value returned is
    // the one this write replaced. On an absent key, an insert that does nothing on conflict.
    exchangeUpdate: statement(`UPDATE ${t} AS r SET value = $2, expires_at = NULL
       FROM (SELECT key, value, expires_at FROM ${t} WHERE key = $1 FOR UPDATE) AS o
       WHERE r.key = o.key
       RETURNING CASE WHEN length(o.value) > $3 THEN NULL ELSE o.value END AS value, length(o.value) AS size, ${live('o')} AS live`,
    ),
    exchangeInsert: statement(`INSERT INTO ${t} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`),
    casAbsent: statement(casResult(`INSERT INTO ${t} AS r (key, value, expires_at) SELECT $1, new.value, ${expiry('$3', 'new.ts')} FROM new
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
        WHERE NOT ${live('r')}`),
    ),
    casEqual: statement(casUpdate('r.value = $4::bytea')),
    casPrefix: statement(casUpdate('substring(r.value FROM 1 FOR length($4::bytea)) = $4::bytea')),
    time: statement(`SELECT ${ms('clock_timestamp()')}::text AS ms`),
    sweep: statement(`DELETE FROM ${t} r WHERE NOT ${live('r')}`),
  };
}

/**
 * `statement` with its parameters written in as literals, for the simple query protocol: text and
 * bytes as hexadecimal (`decode('…', 'hex')`, text through `convert_from`, in the database's
 * default collation, so that `key = …` uses the primary key's index), so no value is ever quoted
 * or escaped; numbers as they print (finite only); `null` as `NULL`.
 *
 * Why not bind parameters: a bound statement needs the extended protocol, in which node-postgres
 * sends one statement per round trip, and the server-side timeouts must be set in the same
 * transaction as the statement (`SET LOCAL`) to work behind PgBouncer's transaction pooling. One
 * simple query, `SET LOCAL …; statement`, is one implicit transaction in one round trip.
 */
export function render(statement: Statement, values: readonly Parameter[]): string {
  return statement.text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= values.length) throw new RangeError(`statement parameter $${n} has no value`);
    return literal(values[index]!);
  });
}

/** Bytes as `decode('…', 'hex')`: hexadecimal digits only, whatever `standard_conforming_strings` says. */
function hexBytes(bytes: Buffer): string {
  return `decode('${bytes.toString('hex')}', 'hex')`;
}

function literal(value: Parameter): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`statement parameter ${value} is not a finite number`);
    return `(${value})`;
  }
  // `COLLATE "default"`: `convert_from` takes the encoding as a `name`, whose collation is "C",
  // and its text result inherits it; compared in "C" with a key column of the database's default
  // collation, `key = …` could not use the primary key's index, and every read scanned the table
  // (at 1,000 members, a few thousand rows per operation).
  if (typeof value === 'string') return `(convert_from(${hexBytes(Buffer.from(value, 'utf8'))}, 'UTF8') COLLATE "default")`;
  if (Buffer.isBuffer(value)) return hexBytes(value);
  return `ARRAY[${value.map(hexBytes).join(', ')}]::bytea[]`;
}
