/**
 * Inputs for the parser fuzz specs (test/fuzz/): arbitrary strings, arbitrary bytes decoded as
 * latin1 and as UTF-8, text made of a parser's own alphabet, huge values, and small mutations of
 * valid values.
 *
 * Runs per property: `ROSTER_FUZZ_RUNS` (`pnpm fuzz` sets 10,000), else 200 in `pnpm test`.
 */
import fc from 'fast-check';

/** How many cases each property runs. */
export const FUZZ_RUNS = Number(process.env.ROSTER_FUZZ_RUNS) > 0 ? Number(process.env.ROSTER_FUZZ_RUNS) : 200;

/** fast-check parameters of every fuzz property. */
export const fuzzParams: fc.Parameters<unknown> = { numRuns: FUZZ_RUNS };

/** Bytes decoded as latin1 (every byte a character) or as UTF-8 (invalid sequences become U+FFFD). */
export const bytesAsText: fc.Arbitrary<string> = fc
  .tuple(fc.uint8Array({ maxLength: 300 }), fc.constantFrom<BufferEncoding>('latin1', 'utf8'))
  .map(([bytes, encoding]) => Buffer.from(bytes).toString(encoding));

/** Strings over `alphabet` (the characters a parser cares about), so that near-valid text is common. */
export function textOver(alphabet: readonly string[], maxLength = 60): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...alphabet), { maxLength }).map((parts) => parts.join(''));
}

/** One huge value (hundreds of kilobytes to a few megabytes), of a few shapes. */
export const huge: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', ' ', 'a ', '1 ', '\u0000', '€', '{"a":', '[', 'x:1 '), fc.integer({ min: 100_000, max: 1_000_000 }))
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));

/** Any text: arbitrary code points (lone surrogates included), bytes, the alphabet given, and some huge values. */
export function anyText(alphabet: readonly string[] = [], options: { huge?: boolean } = {}): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 2, arbitrary: fc.string({ unit: fc.oneof(fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), fc.constantFrom('\uD800', '\uDFFF')), maxLength: 50 }) },
    { weight: 3, arbitrary: bytesAsText },
    { weight: alphabet.length > 0 ? 6 : 0, arbitrary: alphabet.length > 0 ? textOver(alphabet) : fc.constant('') },
    { weight: options.huge === false ? 0 : 1, arbitrary: huge },
  );
}

/** One edit of a string: insert, delete, replace or duplicate at a position. */
type Edit = { op: 'insert' | 'replace'; at: number; text: string } | { op: 'delete' | 'duplicate'; at: number; length: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constantFrom<'insert' | 'replace'>('insert', 'replace'), at: fc.nat(), text: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), fc.constantFrom(' ', '0', '1', '-', ':', '\n', '"', '9999999999999999', '\u0000')) }),
  fc.record({ op: fc.constantFrom<'delete' | 'duplicate'>('delete', 'duplicate'), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
);

function apply(text: string, e: Edit): string {
  const at = text.length === 0 ? 0 : e.at % (text.length + 1);
  switch (e.op) {
    case 'insert':
      return text.slice(0, at) + e.text + text.slice(at);
    case 'replace':
      return text.slice(0, at) + e.text + text.slice(at + e.text.length);
    case 'delete':
      return text.slice(0, at) + text.slice(at + e.length);
    case 'duplicate':
      return text.slice(0, at + e.length) + text.slice(at, at + e.length) + text.slice(at + e.length);
  }
}

/** `valid` with one to three random edits. */
export function mutated(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(valid, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([text, edits]) => edits.reduce(apply, text));
}
