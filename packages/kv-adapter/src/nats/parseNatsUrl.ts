import { ConfigError } from '../errors.js';
import { parseHostPort, splitHostList } from '../backend/hostList.js';

/** One NATS server's client address. */
export interface NatsEndpoint {
  readonly host: string;
  readonly port: number;
}

/** What {@link parseNatsUrl} returns. */
export interface ParsedNatsUrl {
  /** The servers, in the order given; the client connects to one and learns the rest of a cluster. */
  readonly servers: readonly NatsEndpoint[];
  /** True for `tls://` (NATS' own scheme for TLS). */
  readonly tls: boolean;
  /** The user name from `user:pass@`, when given. */
  readonly username?: string;
  /** The password from `user:pass@`, when given. */
  readonly password?: string;
  /** The token from `token@` (user info without a colon, as the NATS tools read it), when given. */
  readonly token?: string;
  /** The key-value bucket from the URL's path, when given. */
  readonly bucket?: string;
  /** `?replicas=N`: the replicas of the bucket when Roster creates it, when given. */
  readonly replicas?: number;
}

const DEFAULT_PORT = 4222;
const SCHEME = /^(nats|tls):\/\//i;
/** JetStream's rule for bucket names. */
const BUCKET = /^[-\w]+$/;

/**
 * Parses a NATS store URL: `nats://[user:pass@|token@]host[:port][,host[:port]…][/bucket][?replicas=N]`,
 * or `tls://…` for TLS (the schemes of the NATS server and tools). The port defaults to 4222;
 * credentials are URL-encoded; user info without a colon is a token, as for the `nats` CLI. The
 * path names the JetStream key-value bucket (letters, digits, `-`, `_`); `replicas` is used only
 * when the bucket does not exist yet and Roster creates it (1, 3 or 5 on a cluster).
 *
 * @throws {@link ConfigError} with field `store` when the URL cannot be parsed; the error's value
 *   is the URL with its password or token redacted.
 *
 * @example
 * ```ts
 * parseNatsUrl('nats://roster:s3cret@10.0.0.1:4222,10.0.0.2/billing?replicas=3');
 * // { servers: [{ host: '10.0.0.1', port: 4222 }, { host: '10.0.0.2', port: 4222 }], tls: false,
 * //   username: 'roster', password: 's3cret', bucket: 'billing', replicas: 3 }
 * ```
 */
export function parseNatsUrl(url: string): ParsedNatsUrl {
  const fail = (why: string): never => {
    throw new ConfigError('store', typeof url === 'string' ? redactNatsUrl(url) : url, `Expected a NATS URL such as \`nats://host:4222[,host:4222…][/bucket]\`: ${why}`);
  };
  if (typeof url !== 'string') return fail('not a string');
  const scheme = SCHEME.exec(url.trim());
  if (!scheme) return fail('the scheme must be nats:// or tls://');
  let rest = url.trim().slice(scheme[0].length);
  let query = '';
  const q = rest.indexOf('?');
  if (q !== -1) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (rest.includes('#')) return fail('no fragment is accepted');
  const { auth, hosts, path: rawPath } = splitHostList(rest);
  const path = rawPath.replace(/\/+$/, '');
  const servers = hosts.split(',').map((entry) => parseHostPort(entry.trim(), DEFAULT_PORT, fail));
  if (path !== '' && !BUCKET.test(path)) fail(`the bucket ${JSON.stringify(path)} may hold only letters, digits, \`-\` and \`_\``);
  let replicas: number | undefined;
  for (const [name, value] of new URLSearchParams(query)) {
    if (name !== 'replicas') fail(`unknown parameter \`${name}\` (known: replicas)`);
    replicas = Number(value);
    if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) fail(`\`replicas\` must be an integer from 1 to 5, found ${JSON.stringify(value)}`);
  }
  const credentials: { username?: string; password?: string; token?: string } = {};
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    try {
      if (colon === -1) credentials.token = decodeURIComponent(auth);
      else {
        credentials.username = decodeURIComponent(auth.slice(0, colon));
        credentials.password = decodeURIComponent(auth.slice(colon + 1));
      }
    } catch {
      fail('the credentials are not valid percent-encoding');
    }
    if (credentials.token === '' || credentials.username === '') fail('empty credentials before `@`');
  }
  return {
    servers,
    tls: scheme[1]!.toLowerCase() === 'tls',
    ...credentials,
    ...(path !== '' && { bucket: path }),
    ...(replicas !== undefined && { replicas }),
  };
}

/**
 * `url` with its password or token replaced by `***`, for errors and logs.
 *
 * @example
 * ```ts
 * redactNatsUrl('nats://roster:s3cret@h:4222'); // 'nats://roster:***@h:4222'
 * redactNatsUrl('tls://s3cret-token@h:4222'); // 'tls://***@h:4222'
 * ```
 */
export function redactNatsUrl(url: string): string {
  return url.replace(/^(\s*(?:nats|tls):\/\/)([^@/]*)@/i, (_, scheme: string, auth: string) => {
    const colon = auth.indexOf(':');
    return `${scheme}${colon === -1 ? '***' : `${auth.slice(0, colon)}:***`}@`;
  });
}
