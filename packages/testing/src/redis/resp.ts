/**
 * The Redis protocol (RESP2), as much as {@link redisCommand} needs: a command out, one reply in.
 * Written here so that `@roster/testing` needs no Redis driver: a PostgreSQL user's tests install
 * no ioredis for it.
 */

/** An error reply (`-ERR …`), its text as the message, as ioredis' `ReplyError`. */
export class RedisReplyError extends Error {
  override readonly name = 'ReplyError';
}

/** `args` as a RESP array of bulk strings. */
export function encodeCommand(args: readonly (string | number)[]): Buffer {
  const parts = args.map((arg) => Buffer.from(String(arg)));
  return Buffer.concat([Buffer.from(`*${parts.length}\r\n`), ...parts.flatMap((part) => [Buffer.from(`$${part.length}\r\n`), part, Buffer.from('\r\n')])]);
}

/** A reply parsed from the start of a buffer, and where it ends. */
interface Parsed {
  readonly value: unknown;
  readonly end: number;
}

/**
 * The reply at `at` in `buffer`, or `undefined` when it has not all arrived yet. Bulk strings as
 * UTF-8 strings, integers as numbers, nulls as `null`, arrays as arrays, error replies as
 * {@link RedisReplyError} values (inside an array too, as Redis may send them there).
 */
export function parseReply(buffer: Buffer, at = 0): Parsed | undefined {
  const lineEnd = buffer.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[at]!);
  const line = buffer.toString('utf8', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new RedisReplyError(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: unknown[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, end);
        if (item === undefined) return undefined;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      throw new Error(`not a RESP reply: ${JSON.stringify(buffer.toString('utf8', at, Math.min(buffer.length, at + 40)))}`);
  }
}
