/**
 * Values at a follower's id key: `PING <seq>` (with the follower's last measured PONG round trip
 * in ms, `PING <seq> <pongRoundTripMs>`, when it has one), `PONG <seq>` or `LEAVE`.
 */
export type IdKeyValue = { kind: 'ping'; seq: number; pongRoundTripMs?: number } | { kind: 'pong'; seq: number } | { kind: 'leave' };

const UINT = '(0|[1-9]\\d{0,15})';
const PING_OR_PONG = new RegExp(`^(PING|PONG) ${UINT}(?: ${UINT})?$`);

/**
 * Parses an id-key value strictly: `PING <seq>`, `PING <seq> <pongRoundTripMs>`, `PONG <seq>` or
 * `LEAVE`, single spaces, unsigned decimal integers without leading zeros; `undefined` for anything
 * else.
 */
export function parseIdKeyValue(value: string): IdKeyValue | undefined {
  if (value === 'LEAVE') return { kind: 'leave' };
  const m = PING_OR_PONG.exec(value);
  if (!m) return undefined;
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(seq)) return undefined;
  if (m[1] === 'PONG') return m[3] === undefined ? { kind: 'pong', seq } : undefined;
  if (m[3] === undefined) return { kind: 'ping', seq };
  const pongRoundTripMs = Number(m[3]);
  return Number.isSafeInteger(pongRoundTripMs) ? { kind: 'ping', seq, pongRoundTripMs } : undefined;
}

/** Formats a PING: `PING <seq>`, or `PING <seq> <pongRoundTripMs>` with the round trip rounded to a ms. */
export function formatPing(seq: number, pongRoundTripMs?: number): string {
  return pongRoundTripMs === undefined ? `PING ${seq}` : `PING ${seq} ${Math.max(0, Math.round(pongRoundTripMs))}`;
}
