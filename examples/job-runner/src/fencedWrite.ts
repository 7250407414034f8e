import type { Redis } from 'ioredis';

/**
 * The check and the write in one Lua script, so that nothing can come between them. The resource
 * is a hash: `token` (the highest fencing token that wrote) and `value`. Tokens are canonical
 * decimal strings, compared by length and then digit by digit (Lua's numbers are doubles, and a
 * token may pass 2^53).
 */
const FENCED_WRITE = `
local highest = redis.call('HGET', KEYS[1], 'token')
local token = ARGV[1]
if highest and (#highest > #token or (#highest == #token and highest > token)) then
  return {0, highest}
end
redis.call('HSET', KEYS[1], 'token', token, 'value', ARGV[2])
return {1, token}
`;

/** What {@link fencedWrite} did. */
export interface FencedWriteResult {
  /** True when the value was written; false when a higher token had written first. */
  readonly accepted: boolean;
  /** The highest token that has written to the resource, this write included. */
  readonly highest: bigint;
}

/** A fenced resource's content: the value and the token that wrote it. */
export interface FencedValue {
  readonly token: bigint;
  readonly value: string;
}

/**
 * Writes `value` to the resource at `key` only when `token` is at least the highest fencing token
 * that has written to it. A leader that was deposed while it worked (a long GC pause, a stopped
 * process, a slow network) and writes late, with its old token, is turned away, even though it
 * still believed it led when it sent the write. Equal tokens pass: one leader writes many times.
 */
export async function fencedWrite(redis: Redis, key: string, token: bigint, value: string): Promise<FencedWriteResult> {
  if (token < 0n) throw new RangeError(`fencedWrite: expected a fencing token ≥ 0, got ${token}`);
  const [accepted, highest] = (await redis.eval(FENCED_WRITE, 1, key, token.toString(), value)) as [number, string];
  return { accepted: accepted === 1, highest: BigInt(highest) };
}

/** Reads a resource written by {@link fencedWrite}; `undefined` before the first write. */
export async function readFenced(redis: Redis, key: string): Promise<FencedValue | undefined> {
  const [token, value] = await redis.hmget(key, 'token', 'value');
  return token == null || value == null ? undefined : { token: BigInt(token), value };
}
