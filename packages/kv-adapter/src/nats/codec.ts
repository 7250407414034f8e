/**
 * How Roster's keys and values are stored in a JetStream key-value bucket.
 *
 * **Keys.** NATS keys allow `A-Z a-z 0-9 - _ / = .` only, and `.` separates subject tokens.
 * Roster's keys (`leader 0`, `clé 0`) are written byte by byte: ASCII letters, digits, `-`,
 * `_` and `/` as they are, every other UTF-8 byte as `=XX` (hex): `leader 0` → `leader=200`.
 * The mapping is one-to-one and never yields a `.`, so keys with a `.` (the store clock's) can
 * never collide with a Roster key.
 *
 * **Values.** A plain value is stored as it is, so that `nats kv get` shows it. A value with a
 * TTL or a stamp is stored behind a header line: NUL, a JSON object, a newline, then the value.
 * A plain value that begins with NUL gets an empty header, so every value reads back unchanged.
 */

/** What a value's header says. */
export interface ValueMeta {
  /** The TTL, counted from the write's own JetStream timestamp (the store's clock). */
  readonly t?: number;
  /** The absolute expiry, in the store's ms since the epoch (kept by an append). */
  readonly x?: number;
  /** A stamp token: each occurrence reads as the write's JetStream timestamp. */
  readonly s?: string;
}

const HEADER = '\u0000';
const KEPT = /[A-Za-z0-9_\-/]/;

/** The NATS key for a Roster key. */
export function encodeKey(key: string): string {
  let out = '';
  for (const ch of key) {
    if (KEPT.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The stored form of `value` with its header. */
export function encodeValue(value: string, meta: ValueMeta = {}): string {
  const plain = meta.t === undefined && meta.x === undefined && meta.s === undefined;
  if (plain && !value.startsWith(HEADER)) return value;
  return `${HEADER}${plain ? '' : JSON.stringify(meta)}\n${value}`;
}

/** A stored value read back: the value with its stamps filled in, and when it expires. */
export interface DecodedValue {
  readonly value: string;
  /** Store time (ms since the epoch) at which the value expires, when it has a TTL. */
  readonly expiresAt: number | undefined;
}

/**
 * Reads a stored value written at store time `writtenAt` (its JetStream timestamp).
 * @throws `SyntaxError` for a header that is not Roster's.
 */
export function decodeValue(stored: string, writtenAt: number): DecodedValue {
  if (!stored.startsWith(HEADER)) return { value: stored, expiresAt: undefined };
  const newline = stored.indexOf('\n');
  if (newline === -1) throw new SyntaxError('a value header without its newline');
  const header = stored.slice(1, newline);
  const meta = (header === '' ? {} : JSON.parse(header)) as ValueMeta;
  let value = stored.slice(newline + 1);
  if (typeof meta.s === 'string' && meta.s !== '') value = value.split(meta.s).join(String(writtenAt));
  const expiresAt = typeof meta.x === 'number' ? meta.x : typeof meta.t === 'number' ? writtenAt + meta.t : undefined;
  return { value, expiresAt };
}
