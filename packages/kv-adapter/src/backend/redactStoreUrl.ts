/** Schemes whose user info without a colon is a token (NATS: `nats://TOKEN@host`). */
const TOKEN_SCHEMES = /^\s*(nats|tls):\/\//i;

/**
 * `url` with every password replaced by `***`, for errors and logs: any store URL (Redis, Redis
 * Cluster lists, Sentinel, PostgreSQL, etcd), since every backend writes credentials as `user:pass@`,
 * and a Sentinel URL's `sentinelPassword=` parameter; in a NATS URL, a token (`nats://TOKEN@host`) too.
 *
 * @example
 * ```ts
 * redactStoreUrl('redis://app:s3cret@host:6379'); // 'redis://app:***@host:6379'
 * ```
 */
export function redactStoreUrl(url: string): string {
  if (typeof url !== 'string') return url;
  let out = '';
  let from = 0;
  for (const { begin, end } of userinfos(url)) {
    const colon = url.indexOf(':', begin);
    if (colon < 0 || colon >= end) {
      // A user name alone is not a secret, except in a NATS URL, where it is a token.
      if (TOKEN_SCHEMES.test(url)) {
        out += `${url.slice(from, begin)}***`;
        from = end;
      }
      continue;
    }
    out += `${url.slice(from, colon + 1)}***`;
    from = end;
  }
  return (out + url.slice(from)).replace(/([?&]sentinelPassword=)[^&#]*/g, '$1***');
}

/**
 * Where the `user:pass` parts of `url` are, found conservatively, so that a password with raw
 * `@ , / :` in it (not URL-encoded, as a user may well write it) is still hidden whole: each
 * user info starts after a `://` (or a `,`, or at the start of a bare entry) and ends at an `@`;
 * text between two `@` with no `://` or `,` in between belongs to the same user info.
 */
function userinfos(url: string): { begin: number; end: number }[] {
  const found: { begin: number; end: number }[] = [];
  let prev = 0;
  for (let at = url.indexOf('@'); at >= 0; at = url.indexOf('@', at + 1)) {
    const region = url.slice(prev, at);
    const scheme = region.indexOf('://');
    const comma = region.indexOf(',');
    const last = found.at(-1);
    if (scheme >= 0) found.push({ begin: prev + scheme + 3, end: at });
    else if (last === undefined) found.push({ begin: prev, end: at });
    else if (comma >= 0) found.push({ begin: prev + comma + 1, end: at });
    else last.end = at; // an `@` inside the previous password
    prev = at + 1;
  }
  return found;
}
