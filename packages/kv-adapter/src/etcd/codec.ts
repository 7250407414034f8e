/** Base64 as etcd's JSON gateway wants keys and values. */
export function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** The text of a base64 field of a gateway reply (`""` when absent: etcd omits empty fields). */
export function decode(field: unknown): string {
  return typeof field === 'string' ? Buffer.from(field, 'base64').toString('utf8') : '';
}

/**
 * The smallest byte string greater than every string that begins with `prefix`: `prefix` with its
 * last byte incremented (UTF-8 text never holds a 0xff byte, so there is no carry).
 */
export function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix, 'utf8');
  bytes[bytes.length - 1]! += 1;
  return bytes.toString('base64');
}

/** One key-value of a gateway reply. */
export interface EtcdKeyValue {
  readonly value?: string;
  readonly mod_revision?: string;
  readonly create_revision?: string;
}

/** The first key-value of a range reply, or undefined when the key is absent. */
export function firstKv(reply: { kvs?: readonly EtcdKeyValue[] } | undefined): EtcdKeyValue | undefined {
  return reply?.kvs?.[0];
}

/** The bytes `start` to `end` (inclusive, negative from the end, clipped) of `value`, as Redis `GETRANGE`. */
export function byteRange(value: string | null, start: number, end: number): string {
  if (value === null) return '';
  const bytes = Buffer.from(value);
  const from = start < 0 ? Math.max(0, bytes.length + start) : start;
  const to = Math.min(bytes.length - 1, end < 0 ? bytes.length + end : end);
  return from > to ? '' : bytes.subarray(from, to + 1).toString();
}
