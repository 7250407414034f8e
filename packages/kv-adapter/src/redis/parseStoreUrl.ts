import { redactStoreUrl } from '../backend/redactStoreUrl.js';
import { ConfigError } from '../errors.js';
import { isSentinelUrl, parseSentinelUrl, type ParsedSentinelStoreUrl } from './parseSentinelUrl.js';

export type { ParsedSentinelStoreUrl } from './parseSentinelUrl.js';

/** One server address. */
export interface StoreAddress {
  readonly host: string;
  readonly port: number;
}

/** Credentials and transport shared by both forms of {@link ParsedStoreUrl}. */
interface ParsedCommon {
  /** ACL user name from the URL, when given. */
  readonly username?: string;
  /** Password from the URL, when given. */
  readonly password?: string;
  /** True for `rediss://` (TLS). */
  readonly tls: boolean;
}

/** A single Redis server: `redis://[user:pass@]host[:port][/db]`. */
export interface ParsedSingleStoreUrl extends ParsedCommon {
  readonly mode: 'single';
  readonly host: string;
  readonly port: number;
  /** The logical database. @defaultValue 0 */
  readonly db: number;
}

/** The seed nodes of a Redis Cluster: a comma-separated list of addresses. */
export interface ParsedClusterStoreUrl extends ParsedCommon {
  readonly mode: 'cluster';
  /** Seed nodes; the client discovers the rest of the cluster from them. */
  readonly nodes: readonly StoreAddress[];
}

/** What {@link parseStoreUrl} returns. */
export type ParsedStoreUrl = ParsedSingleStoreUrl | ParsedClusterStoreUrl | ParsedSentinelStoreUrl;

const DEFAULT_PORT = 6379;

interface Entry extends ParsedCommon, StoreAddress {
  readonly db: number | undefined;
}

/**
 * Parses a Redis store URL.
 *
 * Accepted forms:
 * - `redis://[user:pass@]host[:port][/db]`: one Redis server (port 6379 and db 0 by default);
 *   `user:pass` are URL-encoded ACL credentials, `:pass@` alone is a password for the default user.
 * - `rediss://…`: the same over TLS.
 * - `host[:port]`: one Redis server, as `redis://host:port`.
 * - a comma-separated list of any of the above, e.g. `10.0.0.1:7000,10.0.0.2:7000` or
 *   `redis://a:7000,redis://b:7000`: the seed nodes of a Redis Cluster. Entries must agree on
 *   the scheme and credentials (credentials may be given on one entry only); a cluster has no
 *   `/db` other than 0.
 * - `redis+sentinel://[user[:pass]@]host[:port][,host[:port]…]/MASTER_NAME[/db]`: the master
 *   named `MASTER_NAME` of a Redis Sentinel deployment, found by asking the listed sentinels
 *   (port 26379 by default); the credentials are the master's. `rediss+sentinel://` uses TLS to
 *   the sentinels and to the master.
 *
 * IPv6 hosts are written in brackets: `redis://[::1]:6379`.
 *
 * @throws {@link ConfigError} with field `store` when the URL cannot be parsed; the error's `value`
 *   is the URL with its passwords redacted ({@link redactStoreUrl}).
 *
 * @example
 * ```ts
 * parseStoreUrl('redis://app:s3cret@redis.internal:6380/2');
 * // { mode: 'single', host: 'redis.internal', port: 6380, db: 2, username: 'app', password: 's3cret', tls: false }
 * parseStoreUrl('127.0.0.1:7000,127.0.0.1:7001');
 * // { mode: 'cluster', nodes: [{ host: '127.0.0.1', port: 7000 }, { host: '127.0.0.1', port: 7001 }], tls: false }
 * parseStoreUrl('redis+sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26379/mymaster');
 * // { mode: 'sentinel', sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '10.0.0.2', port: 26379 }], name: 'mymaster', db: 0, tls: false, password: 's3cret' }
 * ```
 */
export function parseStoreUrl(url: string): ParsedStoreUrl {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ConfigError('store', url, 'Expected the store URL to be a non-empty string such as `redis://host:6379`');
  }
  if (isSentinelUrl(url.trim())) return parseSentinelUrl(url.trim(), redactStoreUrl(url));
  return parseList(url.split(',').map((part) => part.trim()), redactStoreUrl(url));
}

function parseList(parts: string[], url: string): ParsedStoreUrl {
  if (parts.some((part) => part === '')) {
    throw new ConfigError('store', url, 'Expected a comma-separated list of `host:port` or `redis://host:port` entries, found an empty entry');
  }
  const entries = parts.map((part) => parseEntry(part, url));
  if (entries.length === 1) {
    const [only] = entries as [Entry];
    return withCredentials({ mode: 'single', host: only.host, port: only.port, db: only.db ?? 0, tls: only.tls }, only);
  }
  return parseCluster(entries, url);
}

function parseCluster(entries: Entry[], url: string): ParsedClusterStoreUrl {
  const first = entries[0]!;
  if (entries.some((e) => e.tls !== first.tls)) {
    throw new ConfigError('store', url, 'Expected every cluster entry to use the same scheme (all `redis://` or all `rediss://`)');
  }
  if (entries.some((e) => e.db !== undefined && e.db !== 0)) {
    throw new ConfigError('store', url, 'Expected no database number in a cluster URL: Redis Cluster has only database 0');
  }
  const withUser = entries.filter((e) => e.username !== undefined || e.password !== undefined);
  const creds = withUser[0];
  if (withUser.some((e) => e.username !== creds?.username || e.password !== creds?.password)) {
    throw new ConfigError('store', url, 'Expected the cluster entries to agree on their credentials');
  }
  const nodes = entries.map(({ host, port }) => ({ host, port }));
  return withCredentials({ mode: 'cluster', nodes, tls: first.tls }, creds);
}

function withCredentials<T extends ParsedStoreUrl>(parsed: T, from: ParsedCommon | undefined): T {
  return {
    ...parsed,
    ...(from?.username !== undefined && { username: from.username }),
    ...(from?.password !== undefined && { password: from.password }),
  };
}

function parseEntry(entry: string, url: string): Entry {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry);
  let parsed: URL;
  try {
    parsed = new URL(hasScheme ? entry : `redis://${entry}`);
  } catch {
    // No cause: the URL parser's error carries the raw input, password included.
    throw new ConfigError('store', url, `Expected ${show(entry, url)} to be \`host:port\` or \`redis://[user:pass@]host:port[/db]\``);
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'redis' && scheme !== 'rediss') {
    throw new ConfigError('store', url, `Expected the scheme \`redis://\` or \`rediss://\`, found ${url.toLowerCase().includes(`${scheme}://`) ? `\`${scheme}://\`` : 'another'}`);
  }
  if (!hasScheme && (parsed.username !== '' || parsed.password !== '' || parsed.pathname !== '')) {
    throw new ConfigError('store', url, `Expected a bare entry to be \`host:port\`; use \`redis://\` for credentials or a database, found ${show(entry, url)}`);
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError('store', url, 'Expected no query string or fragment in the store URL');
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new ConfigError('store', url, `Expected a host in ${show(entry, url)}`);
  // WHATWG URL drops a default port only for special schemes; redis:// keeps what was written.
  const port = parsed.port === '' ? DEFAULT_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError('store', url, `Expected a port from 1 to 65535 in ${show(entry, url)}`);
  }
  return {
    host,
    port,
    db: parseDb(parsed.pathname, url),
    tls: scheme === 'rediss',
    ...(parsed.username !== '' && { username: decode(parsed.username, url) }),
    ...(parsed.password !== '' && { password: decode(parsed.password, url) }),
  };
}

/**
 * `entry` quoted for a message, redacted; or `an entry` when even its redacted form is not part of
 * the redacted URL (a raw `,` inside a password splits it into pieces that look like entries).
 */
function show(entry: string, redactedUrl: string): string {
  const redacted = redactStoreUrl(entry);
  return redactedUrl.includes(redacted) ? JSON.stringify(redacted) : 'an entry';
}

function parseDb(pathname: string, url: string): number | undefined {
  if (pathname === '' || pathname === '/') return undefined;
  const match = /^\/(0|[1-9]\d{0,4})$/.exec(pathname);
  if (!match) throw new ConfigError('store', url, `Expected the path to be a database number such as \`/0\`, found ${url.includes(pathname) ? JSON.stringify(pathname) : 'another path'}`);
  return Number(match[1]);
}

function decode(text: string, url: string): string {
  try {
    return decodeURIComponent(text);
  } catch (cause) {
    throw withCause(new ConfigError('store', url, 'Expected the credentials in the store URL to be URL-encoded'), cause);
  }
}

function withCause<E extends Error>(error: E, cause: unknown): E {
  Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true });
  return error;
}
