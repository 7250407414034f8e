import { describe, expect, it } from 'vitest';
import { KVClosedError, KVRejectedError, StoreAccessError, StoreUnavailableError } from '../src/index.js';
import { mapPostgresError } from '../src/postgres/mapPostgresError.js';

/** An error shaped as pg's `DatabaseError`: a SQLSTATE `code` and a `severity`. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

const context = { backend: 'PostgresKV', operation: 'get', closed: false };

describe('mapPostgresError: failures by SQLSTATE and class', () => {
  it.each([
    ['53300', 'sorry, too many clients already'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection because of crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['08006', 'connection failure'],
    ['40001', 'could not serialize access due to concurrent update'],
    ['40P01', 'deadlock detected'],
    ['25006', 'cannot execute UPDATE in a read-only transaction'],
  ])('%s (%s) is the store unavailable, not timed out', (code, message) => {
    const mapped = mapPostgresError(serverError(code, message), context);
    expect(StoreUnavailableError.is(mapped) && !mapped.timedOut).toBe(true);
  });

  it.each([
    ['57014', 'canceling statement due to statement timeout'],
    ['55P03', 'canceling statement due to lock timeout'],
  ])('%s (%s) is the store unavailable and timed out', (code, message) => {
    const mapped = mapPostgresError(serverError(code, message), context);
    expect(StoreUnavailableError.is(mapped) && mapped.timedOut).toBe(true);
  });

  it.each([
    ['28P01', 'password authentication failed for user "roster"'],
    ['28000', 'no pg_hba.conf entry for host "10.0.0.9"'],
    ['42501', 'permission denied for table roster_kv'],
    ['3D000', 'database "app" does not exist'],
  ])('%s (%s) is access refused', (code, message) => {
    expect(StoreAccessError.is(mapPostgresError(serverError(code, message), context))).toBe(true);
  });

  it.each([
    ['SASL authentication failed'],
    ['database "nosuchdb" does not exist'],
    ['no such database: app'],
    ['unsupported startup parameter: statement_timeout'],
  ])('PgBouncer refusing the configuration (08P01, %s) is access refused, naming the pooler', (message) => {
    const mapped = mapPostgresError(Object.assign(serverError('08P01', message), { severity: 'FATAL' }), context);
    expect(StoreAccessError.is(mapped) && /pooler such as PgBouncer/.test(mapped.message)).toBe(true);
  });

  it('a standby refusing a read-write transaction (0A000) is the store unavailable, naming the standby', () => {
    const mapped = mapPostgresError(serverError('0A000', 'cannot set transaction read-write mode during recovery'), context);
    expect(StoreUnavailableError.is(mapped) && /standby in recovery/.test(mapped.message)).toBe(true);
  });

  it.each([['server login has been failing, try again later (server_login_retry)'], ['pgbouncer cannot connect to server'], ['query_wait_timeout']])(
    'PgBouncer unable to serve now (08P01, %s) is the store unavailable',
    (message) => {
      expect(StoreUnavailableError.is(mapPostgresError(serverError('08P01', message), context))).toBe(true);
    },
  );

  it('any other server error is a rejection, with the SQLSTATE in its message', () => {
    const mapped = mapPostgresError(serverError('22P02', 'invalid input syntax'), context);
    expect(mapped).toBeInstanceOf(KVRejectedError);
    expect(String(mapped)).toMatch(/22P02/);
  });

  it('client-side failures: a refused or reset connection is unavailability, a read timeout timed out, a TLS refusal access', () => {
    const refused = mapPostgresError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), context);
    expect(StoreUnavailableError.is(refused) && !refused.timedOut).toBe(true);
    expect(StoreUnavailableError.is(mapPostgresError(new Error('Connection terminated unexpectedly'), context))).toBe(true);
    const readTimeout = mapPostgresError(new Error('Query read timeout'), context);
    expect(StoreUnavailableError.is(readTimeout) && readTimeout.timedOut).toBe(true);
    const tls = mapPostgresError(Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }), context);
    expect(StoreAccessError.is(tls)).toBe(true);
    expect(StoreAccessError.is(mapPostgresError(new Error('The server does not support SSL connections'), context))).toBe(true);
  });

  it('after close every failure is KV_CLOSED; programming errors pass through', () => {
    expect(mapPostgresError(new Error('Connection terminated'), { ...context, closed: true })).toBeInstanceOf(KVClosedError);
    const bug = new TypeError('x is not a function');
    expect(mapPostgresError(bug, context)).toBe(bug);
  });
});
