import { describe, expect, it } from 'vitest';
import { parseMariadbStatus } from '../src/scale/mariadbStats.js';
import { difference, totalCalls } from '../src/scale/redisStats.js';
import { rosterSystem } from '../src/systems/roster.js';

describe("MariaDB's counters in the scale table", () => {
  it('reads every non-zero Com_* counter and the byte counts, leaving out the readings\' own SHOW STATUS', () => {
    const before = parseMariadbStatus(['Bytes_received\t1000', 'Bytes_sent\t5000', 'Com_begin\t0', 'Com_show_status\t3', 'Com_stmt_execute\t40'].join('\n'));
    const after = parseMariadbStatus(['Bytes_received\t1600', 'Bytes_sent\t9000', 'Com_begin\t2', 'Com_show_status\t4', 'Com_stmt_execute\t70'].join('\n'));
    expect(before).toEqual({ calls: { stmt_execute: 40 }, outputBytes: 5000, inputBytes: 1000, ownOutputBytes: 0 });
    const d = difference(before, after);
    expect(d).toEqual({ calls: { begin: 2, stmt_execute: 30 }, outputBytes: 4000, inputBytes: 600, ownOutputBytes: 0 });
    expect(totalCalls(d)).toBe(32);
  });
});

describe('the rows of the new stores', () => {
  it('names Roster on MariaDB and on NATS JetStream by store, and runs the CLI on their URLs', () => {
    const mariadb = rosterSystem({ storeUrl: 'mysql://roster:roster@127.0.0.1:3306/roster', group: 'g', intervalMs: 100, timeoutMs: 500, storeKind: 'mariadb' });
    expect(mariadb).toMatchObject({ name: 'roster-mariadb-100-500', label: 'Roster on MariaDB I=100/T=500', timing: 'I 100 ms, T 500 ms; one MariaDB, MySQLKV' });
    expect(mariadb.command('n1').args).toContain('mysql://roster:roster@127.0.0.1:3306/roster');
    const nats = rosterSystem({ storeUrl: 'nats://127.0.0.1:4222/bench', group: 'g', intervalMs: 100, timeoutMs: 500, storeKind: 'nats' });
    expect(nats).toMatchObject({ name: 'roster-nats-100-500', label: 'Roster on NATS JetStream I=100/T=500' });
    // The existing rows keep their names.
    expect(rosterSystem({ storeUrl: 'postgres://h/db', group: 'g', intervalMs: 100, timeoutMs: 500, storeKind: 'postgres' }).label).toBe('Roster on PostgreSQL I=100/T=500');
  });
});
