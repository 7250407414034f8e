/**
 * The store URL forms the commands accept: the one list `--help`, docs/cli.md and the TLS flags'
 * help are written from. It follows `connectStore` of `@roster/kv-adapter` (its scheme table and
 * parsers); test/storeForms.test.ts fails when a scheme `connectStore` knows is missing here, or an
 * example here is one it refuses.
 */

/** One form of store URL. */
export interface StoreForm {
  /** The syntax, with `[optional]` parts and upper-case placeholders. */
  readonly form: string;
  /** What it selects, for `--help` and docs/cli.md: one phrase, no Markdown. */
  readonly meaning: string;
  /** Added in docs/cli.md only (Markdown). */
  readonly docs?: string;
  /** The URL schemes (without `://`) of this form; none for a bare `host:port` list. */
  readonly schemes: readonly string[];
  /** How the form asks for TLS, for the TLS flags' help (`rediss://`); absent when it does not. */
  readonly tls?: string;
  /** A URL of this form that `checkStoreUrl` accepts, and the backend it reports. */
  readonly example: { readonly url: string; readonly backend: string };
}

/** Every store URL form, in the order help and docs list them. */
export const STORE_FORMS: readonly StoreForm[] = [
  {
    form: 'redis://[USER[:PASS]@]HOST[:PORT][/DB]',
    meaning: 'one Redis server (port 6379 and database 0 by default; redis://:PASS@HOST gives a password alone)',
    docs: '(user and password URL-encoded; an IPv6 host in brackets: `redis://[::1]:6379`)',
    schemes: ['redis'],
    example: { url: 'redis://app:pw@10.0.0.5:6379/2', backend: 'redis' },
  },
  {
    form: 'rediss://[USER[:PASS]@]HOST[:PORT][/DB]',
    meaning: 'the same over TLS',
    schemes: ['rediss'],
    tls: 'rediss://',
    example: { url: 'rediss://10.0.0.5:6380', backend: 'redis' },
  },
  {
    form: 'HOST:PORT',
    meaning: 'one Redis server, as redis://HOST:PORT',
    schemes: [],
    example: { url: '10.0.0.5:6379', backend: 'redis' },
  },
  {
    form: 'HOST:PORT,HOST:PORT,...',
    meaning:
      'the seed nodes of a Redis Cluster; also redis://HOST:PORT,redis://HOST:PORT,... or rediss://... over TLS, every entry with the same scheme and credentials, and no /DB',
    docs: '(run the servers with `cluster-require-full-coverage no`: below)',
    schemes: [],
    example: { url: '10.0.0.1:7000,10.0.0.2:7000', backend: 'redis' },
  },
  {
    form: 'redis+sentinel://[USER[:PASS]@]HOST[:PORT][,HOST[:PORT]...]/MASTER[/DB][?sentinelUsername=U&sentinelPassword=P]',
    meaning: 'the master named MASTER of a Redis Sentinel deployment, asked of these sentinels (port 26379 by default) and followed through failovers; USER and PASS are the master\'s credentials, sentinelUsername and sentinelPassword (URL-encoded) the sentinels\' own',
    docs: '([stores.md](stores.md#redis-sentinel))',
    schemes: ['redis+sentinel'],
    example: { url: 'redis+sentinel://s1:26379,s2:26379/mymaster', backend: 'redis-sentinel' },
  },
  {
    form: 'rediss+sentinel://...',
    meaning: 'the same over TLS, to the sentinels and to the master',
    schemes: ['rediss+sentinel'],
    tls: 'rediss+sentinel://',
    example: { url: 'rediss+sentinel://s1:26379/mymaster', backend: 'redis-sentinel' },
  },
  {
    form: 'postgres://USER[:PASS]@HOST[:PORT]/DB[?sslmode=MODE&table=TABLE]',
    meaning:
      'a PostgreSQL database (also postgresql://; port 5432 by default); one table, roster_kv unless table= names another, created when missing; sslmode is disable (the default), require, verify-ca or verify-full',
    docs: '([stores.md](stores.md#postgresql))',
    schemes: ['postgres', 'postgresql'],
    tls: 'postgres://...?sslmode=...',
    example: { url: 'postgresql://roster:pw@db.internal:5432/app?sslmode=verify-full', backend: 'postgres' },
  },
  {
    form: 'mysql://USER[:PASS]@HOST[:PORT]/DB[?ssl=MODE&table=TABLE]',
    meaning:
      'a MySQL 8 or MariaDB database (also mariadb://; port 3306 by default); one table, roster_kv unless table= names another, created when missing; ssl is disable (the default), require, verify-ca or verify-full',
    docs: '([stores.md](stores.md#mysql-and-mariadb))',
    schemes: ['mysql', 'mariadb'],
    tls: 'mysql://...?ssl=...',
    example: { url: 'mysql://roster:pw@db.internal:3306/app?ssl=verify-full', backend: 'mysql' },
  },
  {
    form: 'etcd://[USER[:PASS]@]HOST[:PORT][,HOST[:PORT]...][/PREFIX]',
    meaning:
      'etcd v3: its members (port 2379 by default), tried in turn, and a key prefix for the group; etcd has no clock, so roster primary refuses it; with ROSTER_STORE_PASSWORD, name the user in the URL',
    docs: '([stores.md](stores.md#etcd))',
    schemes: ['etcd'],
    example: { url: 'etcd://roster@e1:2379,e2:2379/billing', backend: 'etcd' },
  },
  {
    form: 'etcds://...',
    meaning: 'the same over TLS',
    schemes: ['etcds'],
    tls: 'etcds://',
    example: { url: 'etcds://e1:2379', backend: 'etcd' },
  },
  {
    form: 'nats://[USER:PASS@|TOKEN@]HOST[:PORT][,HOST[:PORT]...][/BUCKET][?replicas=N]',
    meaning:
      'a NATS JetStream key-value bucket (roster unless named; created with history 1 and N replicas when missing, N=3 on a 3-server cluster) on these servers (port 4222 by default); user info without a colon is a token',
    docs: '([stores.md](stores.md#nats-jetstream))',
    schemes: ['nats'],
    example: { url: 'nats://roster:pw@n1:4222,n2:4222,n3:4222/billing?replicas=3', backend: 'nats' },
  },
  {
    form: 'tls://...',
    meaning: 'the same over TLS (the NATS tools\' scheme for it)',
    schemes: ['tls'],
    tls: 'tls://',
    example: { url: 'tls://n1:4222/billing', backend: 'nats' },
  },
];

/** The kinds of store, for summaries: "Redis, Redis Cluster, Redis Sentinel, PostgreSQL, MySQL/MariaDB, etcd or NATS JetStream". */
export const STORE_KINDS = 'Redis, Redis Cluster, Redis Sentinel, PostgreSQL, MySQL/MariaDB, etcd or NATS JetStream';

/** The forms that use TLS, as the TLS flags' help names them. */
export const TLS_FORMS: readonly string[] = STORE_FORMS.flatMap((f) => (f.tls === undefined ? [] : [f.tls]));

/** The Markdown table of the store URL forms, for docs/cli.md. */
export function storeFormsMarkdown(): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  return [
    '| form | meaning |',
    '|---|---|',
    ...STORE_FORMS.map((f) => `| \`${cell(f.form)}\` | ${cell(f.meaning)}${f.docs ? ` ${cell(f.docs)}` : ''} |`),
  ].join('\n');
}
