import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { render } from '../src/postgres/statements.js';

describe('render: the parameters of a PostgresKV statement written in as literals', () => {
  it('writes text and bytes as hexadecimal digits only, whatever they hold: nothing to quote or escape', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.uint8Array(), (text, bytes) => {
        const sql = render({ text: 'SELECT $1, $2' }, [text, Buffer.from(bytes)]);
        expect(sql).toMatch(/^SELECT \(convert_from\(decode\('[0-9a-f]*', 'hex'\), 'UTF8'\) COLLATE "default"\), decode\('[0-9a-f]*', 'hex'\)$/);
        const [textHex, bytesHex] = [...sql.matchAll(/decode\('([0-9a-f]*)'/g)].map((m) => m[1]!);
        expect(Buffer.from(textHex!, 'hex').toString('utf8')).toBe(Buffer.from(text, 'utf8').toString('utf8'));
        expect(Buffer.from(bytesHex!, 'hex')).toEqual(Buffer.from(bytes));
      }),
      { seed: 31, numRuns: 200 },
    );
  });

  it('writes numbers, null and arrays of bytes; $10 is not $1 followed by 0', () => {
    const values = [-3, null, [Buffer.from('a'), Buffer.from('b')], 4, 5, 6, 7, 8, 9, 1.5];
    expect(render({ text: 'SELECT $1, $2, $3, $10' }, values)).toBe(
      "SELECT (-3), NULL, ARRAY[decode('61', 'hex'), decode('62', 'hex')]::bytea[], (1.5)",
    );
  });

  it('refuses a parameter without a value, and a number that is not finite', () => {
    expect(() => render({ text: 'SELECT $2' }, [1])).toThrow(RangeError);
    expect(() => render({ text: 'SELECT $1' }, [Number.NaN])).toThrow(RangeError);
  });
});
