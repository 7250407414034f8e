import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalPgBouncer, LocalPostgres } from '@roster/testing';
import { describeFigures, runElectionScenario, SCENARIO_I, SCENARIO_T } from './support/electionScenario.js';
import { killAllNodes, startRoster } from './support/rosterNode.js';

/**
 * `roster node --store postgres://…` on PostgreSQL behind PgBouncer in transaction pooling
 * (Debian's PgBouncer 1.18, 4 server connections for 5–6 processes). PgBouncer refuses startup
 * parameters it does not know (`statement_timeout`: `roster node` exited 2 before PostgresKV set
 * its timeouts with `SET LOCAL`), and hands each transaction to any server connection, so this
 * runs only if PostgresKV keeps no session state.
 */
let server: LocalPostgres;
let bouncer: LocalPgBouncer;

beforeAll(async () => {
  server = await LocalPostgres.start();
  bouncer = await LocalPgBouncer.start(server, { poolMode: 'transaction', poolSize: 4 });
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await bouncer?.destroy();
  await server?.destroy();
});
afterEach(killAllNodes);

describe('roster node --store postgres:// through PgBouncer (transaction pooling), 5 processes at I=100/T=500', () => {
  it('one leader; a SIGKILLed leader is replaced within T + 2I; a join is seen by all; resign and a graceful stop hand over', async () => {
    const nodes: ReturnType<typeof startRoster>[] = [];
    const start = (id: string): ReturnType<typeof startRoster> => {
      const p = startRoster('node', '--json', '--store', bouncer.url, '--group', 'bounced', '--env', 'test', '--id', id, '--interval', String(SCENARIO_I), '--timeout', String(SCENARIO_T));
      nodes.push(p);
      return p;
    };
    const figures = await runElectionScenario(start, 'b');
    console.info(describeFigures('PgBouncer, transaction pooling', figures));
    // The processes' transactions went through PgBouncer's pool of 4 server connections.
    const [, xacts] = (await bouncer.admin('SHOW STATS')).split('\n').find((row) => row.startsWith('postgres|'))!.split('|');
    expect(Number(xacts)).toBeGreaterThan(100);
    for (const p of nodes) expect(p.stderr, p.describe()).not.toMatch(/unsupported startup parameter|prepared statement/);
  });
});
