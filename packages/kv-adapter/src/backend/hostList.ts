/**
 * The parts of a store URL that lists several servers (`etcd://`, `nats://`):
 * `SCHEME://[USERINFO@]HOST[:PORT][,HOST[:PORT]…][/PATH]`, which `new URL` does not read (a list of
 * hosts). Each backend checks and decodes the parts its own way.
 */

/** One server's address. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** What {@link splitHostList} returns: the raw parts, not decoded. */
export interface HostListParts {
  /** What stands before the last `@` ahead of the path, when there is one. */
  readonly auth?: string;
  /** The comma-separated host list. */
  readonly hosts: string;
  /** What follows the first `/` after the hosts, `""` when none. */
  readonly path: string;
}

/** Splits `rest`, a URL without its scheme, into user info, host list and path. */
export function splitHostList(rest: string): HostListParts {
  let auth: string | undefined;
  const at = rest.lastIndexOf('@', rest.indexOf('/') === -1 ? undefined : rest.indexOf('/'));
  if (at !== -1) {
    auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  const slash = rest.indexOf('/');
  const hosts = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  return { ...(auth !== undefined && { auth }), hosts, path };
}

/**
 * One entry of a host list, `host[:port]` or `[ipv6][:port]`, the port `defaultPort` when not
 * given; `fail(why)` throws the backend's own error.
 */
export function parseHostPort(entry: string, defaultPort: number, fail: (why: string) => never): HostPort {
  if (entry === '') return fail('an empty host');
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@]+)(?::(\d+))?$/.exec(entry);
  if (!m) return fail(`cannot read the address ${JSON.stringify(entry)}`);
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`port ${m[2]} is out of range`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}
