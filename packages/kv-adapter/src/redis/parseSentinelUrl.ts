import { ConfigError } from '../errors.js';

/** Sentinel's default port. */
export const DEFAULT_SENTINEL_PORT = 26379;

/** A Redis master found through Redis Sentinel: `redis+sentinel://host:port,…/MASTER_NAME[/db]`. */
export interface ParsedSentinelStoreUrl {
  readonly mode: 'sentinel';
  /** The sentinels to ask for the master, in the URL's order. */
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  /** The master's name, as the sentinels know it (`sentinel monitor NAME …`). */
  readonly name: string;
  /** The logical database. @defaultValue 0 */
  readonly db: number;
  /** True for `rediss+sentinel://`: TLS to the sentinels and to the master. */
  readonly tls: boolean;
  /** ACL user name of the master (and replicas), when given. */
  readonly username?: string;
  /** Password of the master (and replicas), when given. */
  readonly password?: string;
  /** The sentinels' own ACL user (`?sentinelUsername=`), when given. */
  readonly sentinelUsername?: string;
  /** The sentinels' own password (`?sentinelPassword=`), when given. */
  readonly sentinelPassword?: string;
}

/** The query parameters of a Sentinel URL: the sentinels' own credentials. */
const PARAMS = ['sentinelUsername', 'sentinelPassword'] as const;

const SCHEME = /^(rediss?)\+sentinel:\/\//i;

/** True when `url` is written with the `redis+sentinel://` or `rediss+sentinel://` scheme. */
export function isSentinelUrl(url: string): boolean {
  return SCHEME.test(url);
}

/**
 * Parses `redis+sentinel://[user[:pass]@]host[:port][,host[:port]…]/MASTER_NAME[/db][?sentinelUsername=…&sentinelPassword=…]`
 * (and `rediss+sentinel://` for TLS). Ports default to 26379. The user info is the master's
 * credentials; the query, URL-encoded, the sentinels' own (Sentinel's `requirepass` or an ACL
 * user of the sentinels), so that one URL (one secret) carries both. `redactedUrl` is what errors show.
 */
export function parseSentinelUrl(url: string, redactedUrl: string): ParsedSentinelStoreUrl {
  const match = SCHEME.exec(url)!;
  const tls = match[1]!.toLowerCase() === 'rediss';
  // The query, its values URL-encoded, starts at the first `?` after the path's last `/`.
  const full = url.slice(match[0].length);
  const lastSlash = full.lastIndexOf('/');
  const question = lastSlash < 0 ? -1 : full.indexOf('?', lastSlash);
  const rest = question < 0 ? full : full.slice(0, question);
  const query = question < 0 ? undefined : full.slice(question + 1);
  // The user info ends at the last `@` before the hosts: a raw `@` or `/` in a password stays in it.
  const at = rest.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : rest.slice(0, at);
  const afterUser = at < 0 ? rest : rest.slice(at + 1);
  const slash = afterUser.indexOf('/');
  const hosts = slash < 0 ? afterUser : afterUser.slice(0, slash);
  const path = slash < 0 ? '' : afterUser.slice(slash + 1);
  if (/[?#]/.test(path) || /[?#]/.test(hosts) || query?.includes('#')) {
    throw new ConfigError('store', redactedUrl, 'Expected no fragment in the store URL, and a query only after the master name');
  }
  const params = parseQuery(query, redactedUrl);
  const sentinels = hosts.split(',').map((entry) => parseHost(entry.trim(), redactedUrl));
  const [rawName, rawDb, ...extra] = path.split('/');
  if (rawName === undefined || rawName === '' || extra.length > 0) {
    throw new ConfigError('store', redactedUrl, 'Expected `redis+sentinel://host:port[,host:port…]/MASTER_NAME[/db]`: the master name is missing or the path has too many parts');
  }
  const name = decode(rawName, redactedUrl);
  let db = 0;
  if (rawDb !== undefined && rawDb !== '') {
    if (!/^(0|[1-9]\d{0,4})$/.test(rawDb)) throw new ConfigError('store', redactedUrl, 'Expected the path after the master name to be a database number such as `/0`');
    db = Number(rawDb);
  }
  let username: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    const user = colon < 0 ? userinfo : userinfo.slice(0, colon);
    if (user !== '') username = decode(user, redactedUrl);
    if (colon >= 0) password = decode(userinfo.slice(colon + 1), redactedUrl);
  }
  return {
    mode: 'sentinel',
    sentinels,
    name,
    db,
    tls,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...params,
  };
}

/** `sentinelUsername=…&sentinelPassword=…`, each at most once, URL-decoded (a `+` is a plus). */
function parseQuery(query: string | undefined, redactedUrl: string): { sentinelUsername?: string; sentinelPassword?: string } {
  const out: { sentinelUsername?: string; sentinelPassword?: string } = {};
  if (query === undefined || query === '') return out;
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (!(PARAMS as readonly string[]).includes(name)) {
      throw new ConfigError('store', redactedUrl, `Expected only the parameters ${PARAMS.map((p) => `\`${p}\``).join(', ')} in a Sentinel URL, found \`${name.slice(0, 40)}\``);
    }
    const key = name as (typeof PARAMS)[number];
    if (out[key] !== undefined) throw new ConfigError('store', redactedUrl, `Expected \`${key}\` once in the store URL`);
    out[key] = equals < 0 ? '' : decode(pair.slice(equals + 1), redactedUrl);
  }
  return out;
}

function parseHost(entry: string, redactedUrl: string): { host: string; port: number } {
  let parsed: URL | undefined;
  try {
    parsed = entry === '' || /[/@]/.test(entry) ? undefined : new URL(`redis://${entry}`);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.hostname === '') {
    throw new ConfigError('store', redactedUrl, `Expected each sentinel to be \`host[:port]\`, found ${entry === '' ? 'an empty entry' : JSON.stringify(entry)}`);
  }
  const port = parsed.port === '' ? DEFAULT_SENTINEL_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError('store', redactedUrl, `Expected a port from 1 to 65535 in ${JSON.stringify(entry)}`);
  }
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

function decode(text: string, redactedUrl: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ConfigError('store', redactedUrl, 'Expected the credentials and master name in the store URL to be URL-encoded');
  }
}
