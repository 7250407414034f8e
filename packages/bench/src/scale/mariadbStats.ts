/**
 * MariaDB's own counters of what its clients asked (`SHOW GLOBAL STATUS`): statements by kind
 * (`Com_*`: `stmt_execute` for a prepared statement run, `select`, `begin`, `commit`, …) and bytes
 * sent and received, in the shape of {@link RedisCounters} so that the scale table reads them the
 * same way as Redis's `INFO commandstats`.
 */
import type { RedisCounters } from './redisStats.js';

/** What reads the server's global status as root: rows of `name<TAB>value`. */
export interface StatusSource {
  sql(statement: string): Promise<string>;
}

/** Statements of the reading itself, left out of the counts. */
const OWN = new Set(['show_status']);

/** Parses `SHOW GLOBAL STATUS` rows into counters: every non-zero `Com_*` counter, `Bytes_sent`, `Bytes_received`. */
export function parseMariadbStatus(rows: string): RedisCounters {
  const calls: Record<string, number> = {};
  let outputBytes = 0;
  let inputBytes = 0;
  for (const line of rows.split('\n')) {
    const [name = '', value = ''] = line.split('\t');
    const n = Number(value);
    if (!Number.isFinite(n)) continue;
    const lower = name.toLowerCase();
    if (lower === 'bytes_sent') outputBytes = n;
    else if (lower === 'bytes_received') inputBytes = n;
    else if (lower.startsWith('com_') && n > 0 && !OWN.has(lower.slice(4))) calls[lower.slice(4)] = n;
  }
  return { calls, outputBytes, inputBytes, ownOutputBytes: 0 };
}

/**
 * Reads the counters. Each reading is one `mariadb` client session of its own, whose handshake and
 * reply add a few hundred bytes to the byte counts (under one byte per member and interval at
 * N = 100 over ten intervals).
 */
export async function mariadbCounters(server: StatusSource): Promise<RedisCounters> {
  return parseMariadbStatus(await server.sql("SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Com\\_%' OR Variable_name IN ('Bytes_sent', 'Bytes_received')"));
}
