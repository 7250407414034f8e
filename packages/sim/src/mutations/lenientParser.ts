import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * "Be liberal in what you accept": every value read is tidied up before it is parsed (spaces
 * collapsed and trimmed, leading zeros and signs dropped, characters not allowed in ids removed),
 * so that near-miss garbage (`01 0 3 ghost ghost`, ` ghost!`, `LEAVE `) is adopted as a
 * broadcast, a joiner or a leave.
 */
export const lenientParser: Mutation = {
  name: 'lenient-parser',
  description: 'values are tidied up before parsing, so near-miss garbage is adopted',
  rejectedBy: 'nothing-invented',
  wrapKV(kv) {
    return overrideKV(kv, {
      get: async (key, options) => tidy(key, await kv.get(key, options)),
      take: async (key, options) => tidy(key, await kv.take(key, options)),
    });
  },
};

/** What a lenient parser would make of `value`, read at `key` (join-key values keep their leading space). */
export function tidy(key: string, value: string | null): string | null {
  if (value === null) return null;
  const leadingSpace = /\/join \d+$/.test(key) ? ' ' : '';
  const tokens = value
    .split(/\s+/)
    .map((t) => t.replace(/[^A-Za-z0-9._@:-]/g, '').replace(/^-+/, '').replace(/^0+(?=\d)/, ''))
    .filter((t) => t !== '');
  return leadingSpace + tokens.join(' ');
}
