import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../src/internal/LineSplitter.js';

function splitter(maxLength?: number): { lines: string[]; overflows: number[]; splitter: LineSplitter } {
  const lines: string[] = [];
  const overflows: number[] = [];
  return { lines, overflows, splitter: new LineSplitter((l) => lines.push(l), (n) => overflows.push(n), maxLength) };
}

describe('LineSplitter', () => {
  it('gives every complete line however the text is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'é', '{', '"', ' ') })), fc.array(fc.nat(), { maxLength: 10 }), (wanted, cuts) => {
        const text = wanted.map((l) => `${l}\n`).join('') + 'unfinished';
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const { lines, splitter: s } = splitter();
        let from = 0;
        for (const point of [...points, text.length]) {
          s.push(text.slice(from, point));
          from = point;
        }
        expect(lines).toEqual(wanted);
      }),
      { seed: 20_000, verbose: true },
    );
  });

  it('drops a \\r before the \\n', () => {
    const { lines, splitter: s } = splitter();
    s.push('a\r\nb\n');
    expect(lines).toEqual(['a', 'b']);
  });

  it('skips a line that is too long, reports it once, and carries on with the next', () => {
    const { lines, overflows, splitter: s } = splitter(5);
    s.push('ok\n0123');
    s.push('456789');
    s.push('abc');
    s.push('def\nnext\n');
    s.push('123456\n');
    expect(lines).toEqual(['ok', 'next']);
    expect(overflows).toEqual([10, 6]);
  });

  it('forgets an unfinished line on reset', () => {
    const { lines, splitter: s } = splitter();
    s.push('{"half');
    s.reset();
    s.push('whole\n');
    expect(lines).toEqual(['whole']);
  });
});
