import { createHash } from 'node:crypto';

/** A Lua script run with `EVALSHA`, falling back to `EVAL` when the server does not have it yet. */
export interface LuaScript {
  readonly name: string;
  readonly lua: string;
  readonly sha1: string;
}

function script(name: string, lua: string): LuaScript {
  return { name, lua, sha1: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Appends ARGV[1] to KEYS[1] unless the result would be over ARGV[2] bytes.
 * Returns the new length, or minus the length the value would have had (nothing is written).
 */
export const APPEND_WITHIN_LIMIT = script(
  'appendWithinLimit',
  `
local len = redis.call('STRLEN', KEYS[1]) + string.len(ARGV[1])
if len > tonumber(ARGV[2]) then
  return -len
end
return redis.call('APPEND', KEYS[1], ARGV[1])
`,
);

/**
 * Reads KEYS[1] (and deletes it when ARGV[2] is '1') without ever sending back more than ARGV[1]
 * bytes: `STRLEN` first, so that an oversized value never leaves the server. Returns the value,
 * nil when absent, or minus its length when it is over the limit (a take deletes it all the same).
 */
export const READ_WITHIN_LIMIT = script(
  'readWithinLimit',
  `
local len = redis.call('STRLEN', KEYS[1])
if len > tonumber(ARGV[1]) then
  if ARGV[2] == '1' then redis.call('DEL', KEYS[1]) end
  return -len
end
if ARGV[2] == '1' then
  return redis.call('GETDEL', KEYS[1])
end
return redis.call('GET', KEYS[1])
`,
);

/**
 * Compare-and-set with the store's clock, in one atomic step.
 *
 * KEYS[1] the key. ARGV: [1] '1' when a value is expected, '2' when a value beginning with [2] is
 * expected, '0' for "absent", [2] the expected
 * value, [3] the new value, [4] ttl in ms or '', [5] the stamp token or '', [6] max value bytes.
 *
 * Reads `TIME` first, replaces every literal occurrence of the token in the new value by the time
 * in ms, and returns `{ outcome, time_ms, current }`: outcome 1 swapped (current is the new value
 * as stamped, returned only when a token was given: the caller knows an unstamped value already,
 * and a leader's publication is not sent back to it every interval),
 * 0 not swapped (current is the unchanged value, or nil), -1 the stamped value is over the limit
 * (current is its length; nothing is written), -2 the value in the store is over the limit (current
 * is its length: an oversized value never leaves the server; nothing is written).
 */
export const COMPARE_AND_SET = script(
  'compareAndSet',
  `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
local value = ARGV[3]
local token = ARGV[5]
if token ~= '' then
  local parts = {}
  local from = 1
  while true do
    local i, j = string.find(value, token, from, true)
    if not i then break end
    parts[#parts + 1] = string.sub(value, from, i - 1)
    parts[#parts + 1] = now
    from = j + 1
  end
  parts[#parts + 1] = string.sub(value, from)
  value = table.concat(parts)
end
if string.len(value) > tonumber(ARGV[6]) then
  return {-1, now, string.len(value)}
end
local size = redis.call('STRLEN', KEYS[1])
if size > tonumber(ARGV[6]) then
  return {-2, now, size}
end
local current = redis.call('GET', KEYS[1])
local matches
if ARGV[1] == '1' then matches = (current == ARGV[2])
elseif ARGV[1] == '2' then matches = (current ~= false and string.sub(current, 1, string.len(ARGV[2])) == ARGV[2])
else matches = (current == false) end
if not matches then
  return {0, now, current}
end
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], value, 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], value)
end
if token ~= '' then
  return {1, now, value}
end
return {1, now}
`,
);
