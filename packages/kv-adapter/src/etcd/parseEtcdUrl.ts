import { ConfigError } from '../errors.js';
import { parseHostPort, splitHostList } from '../backend/hostList.js';

/** One etcd member's client address. */
export interface EtcdEndpoint {
  readonly host: string;
  readonly port: number;
}

/** What {@link parseEtcdUrl} returns. */
export interface ParsedEtcdUrl {
  /** The members' client addresses, in the order given: they are tried in turn. */
  readonly endpoints: readonly EtcdEndpoint[];
  /** True for `etcds://` (TLS). */
  readonly tls: boolean;
  /** The user name from the URL, when given. */
  readonly username?: string;
  /** The password from the URL, when given. */
  readonly password?: string;
  /**
   * The key prefix from the URL's path, ending with `/` (`etcds://h:2379/teams/billing` →
   * `teams/billing/`), or `""` when there is no path.
   */
  readonly prefix: string;
}

const DEFAULT_PORT = 2379;
const SCHEME = /^(etcds?):\/\//i;

/**
 * Parses an etcd store URL: `etcd://[user[:pass]@]host[:port][,host[:port]…][/prefix]`, or
 * `etcds://…` for TLS. The port defaults to 2379; user and password are URL-encoded; IPv6 hosts
 * are written in brackets (`etcd://[::1]:2379`). The path, when there is one, is a key prefix:
 * every key is stored under it, so that groups (or tenants with an etcd role on that prefix)
 * share one etcd without seeing one another's keys.
 *
 * @throws {@link ConfigError} with field `store` when the URL cannot be parsed; the error's value
 *   is the URL with its password redacted.
 *
 * @example
 * ```ts
 * parseEtcdUrl('etcd://roster:s3cret@10.0.0.1:2379,10.0.0.2:2379/billing');
 * // { endpoints: [{ host: '10.0.0.1', port: 2379 }, { host: '10.0.0.2', port: 2379 }],
 * //   tls: false, username: 'roster', password: 's3cret', prefix: 'billing/' }
 * ```
 */
export function parseEtcdUrl(url: string): ParsedEtcdUrl {
  const fail = (why: string): never => {
    throw new ConfigError('store', typeof url === 'string' ? redactEtcdUrl(url) : url, `Expected an etcd URL such as \`etcd://host:2379[,host:2379…][/prefix]\`: ${why}`);
  };
  if (typeof url !== 'string') return fail('not a string');
  const scheme = SCHEME.exec(url.trim());
  if (!scheme) return fail('the scheme must be etcd:// or etcds://');
  const { auth, hosts, path } = splitHostList(url.trim().slice(scheme[0].length));
  if (/[?#]/.test(path)) return fail('no query or fragment is accepted');
  const endpoints = hosts.split(',').map((entry) => parseHostPort(entry.trim(), DEFAULT_PORT, fail));
  let prefix = '';
  try {
    prefix = decodeURIComponent(path.replace(/\/+$/, ''));
  } catch {
    fail('the prefix is not valid percent-encoding');
  }
  if (prefix !== '') prefix += '/';
  let username: string | undefined;
  let password: string | undefined;
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    try {
      username = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
      password = colon === -1 ? undefined : decodeURIComponent(auth.slice(colon + 1));
    } catch {
      fail('the credentials are not valid percent-encoding');
    }
    if (username === '') fail('a password needs a user name (etcd has no default user)');
  }
  return {
    endpoints,
    tls: scheme[1]!.toLowerCase() === 'etcds',
    prefix,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
  };
}

/**
 * `url` with its password replaced by `***`, for errors and logs.
 *
 * @example
 * ```ts
 * redactEtcdUrl('etcd://roster:s3cret@10.0.0.1:2379'); // 'etcd://roster:***@10.0.0.1:2379'
 * ```
 */
export function redactEtcdUrl(url: string): string {
  return url.replace(/^(etcds?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}
