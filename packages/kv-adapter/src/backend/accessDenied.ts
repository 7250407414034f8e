/**
 * Connection errors that no retry can fix: a TLS peer that fails verification or refuses our
 * certificate, and the server's `WRONGPASS`/`NOAUTH`/`NOPERM` replies.
 */

/** Error replies that mean "this client may not": wrong credentials or a missing ACL permission. */
const DENIED_REPLIES = new Set(['WRONGPASS', 'NOAUTH', 'NOPERM']);

/**
 * A one-line reason when `error` (or an error in its `cause` chain) means the store refused this
 * client for good, else `undefined`. Examples: `TLS: certificate has expired (CERT_HAS_EXPIRED)`,
 * `WRONGPASS invalid username-password pair or user is disabled.`
 */
export function accessDenied(error: unknown): string | undefined {
  const sentinel = sentinelRefusal(error);
  if (sentinel !== undefined) return sentinel;
  // ioredis' cluster errors ("Failed to refresh slots cache") keep the node's error in `lastNodeError`.
  const next = (e: Error): unknown => e.cause ?? (e as { lastNodeError?: unknown }).lastNodeError;
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = next(e), depth++) {
    const code = (e as { code?: unknown }).code;
    if (e.name === 'ReplyError' && DENIED_REPLIES.has(e.message.split(' ', 1)[0] ?? '')) return e.message;
    if (typeof code === 'string' && isTlsRefusal(code)) return `TLS: ${firstLine(e.message)} (${code})`;
  }
  return undefined;
}

/**
 * ioredis' Sentinel connector reports that no sentinel gave it the master in one error whose
 * message ends with the last sentinel's error, as text only (no `cause`): `All sentinels are
 * unreachable. Retrying from scratch after 50ms. Last error: NOAUTH Authentication required.`
 * A sentinel that refused the credentials, or a TLS sentinel that failed verification, is final.
 */
function sentinelRefusal(error: unknown): string | undefined {
  if (!(error instanceof Error) || !error.message.startsWith('All sentinels are unreachable')) return undefined;
  const last = / Last error: (.*)$/s.exec(error.message)?.[1];
  if (last === undefined) return undefined;
  if (DENIED_REPLIES.has(last.split(' ', 1)[0] ?? '')) return `sentinel: ${last}`;
  if (/certificate|altnames|SSL routines/i.test(last)) return `sentinel: TLS: ${firstLine(last)}`;
  return undefined;
}

/**
 * Node's certificate verification codes (`CERT_HAS_EXPIRED`, `SELF_SIGNED_CERT_IN_CHAIN`,
 * `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `ERR_TLS_CERT_ALTNAME_INVALID`, …) and OpenSSL's handshake
 * failures (`ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED`, `ERR_SSL_WRONG_VERSION_NUMBER`, …).
 */
function isTlsRefusal(code: string): boolean {
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_CERT') || /CERT|UNABLE_TO_(GET|VERIFY)/.test(code);
}

/** OpenSSL's messages carry a library prefix and a source position: keep the reason only. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  const reason = /:SSL routines:[^:]*:([^:]+):/.exec(line)?.[1];
  return reason ?? line;
}
