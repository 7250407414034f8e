import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyMutant, MutantListError, parseMutants, patchProblem, type Mutant } from '../src/mutants/Mutant.js';
import { allKilled, formatMutantTable, type MutantResult } from '../src/mutants/runMutants.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mutant: Mutant = { name: 'm', description: 'd', file: 'f.ts', find: 'a < b', replace: 'a <= b', test: 'false' };

describe('source mutants', () => {
  it('every entry of mutants.json applies to the code as it is: its text occurs exactly once in its file', () => {
    const mutants = parseMutants(readFileSync(`${root}packages/sim/mutants.json`, 'utf8'));
    expect(mutants.length).toBeGreaterThan(0);
    for (const m of mutants) expect(patchProblem(m, readFileSync(`${root}${m.file}`, 'utf8')), m.name).toBeUndefined();
  });

  it("docs/testing.md's table lists every mutant of mutants.json, with the test file that kills it", () => {
    const mutants = parseMutants(readFileSync(`${root}packages/sim/mutants.json`, 'utf8'));
    const doc = readFileSync(`${root}docs/testing.md`, 'utf8');
    const table = doc.slice(doc.indexOf('| source mutant |'));
    const rows = new Map([...table.matchAll(/^\| `([^`]+)` \| .+ \| `([^`]+)` \|$/gm)].map((m) => [m[1]!, m[2]!]));
    expect([...rows.keys()].sort()).toEqual(mutants.map((m) => m.name).sort());
    for (const m of mutants) {
      // The spec file the command runs (`test/broadcast.test.ts`, or a root test's own name).
      const file = m.test.split(' ').find((word) => /\.test\.ts$/.test(word));
      expect(file, m.name).toBeDefined();
      expect(rows.get(m.name)?.endsWith(file!), `${m.name}: killed by ${file}, the table says ${rows.get(m.name)}`).toBe(true);
    }
  });

  it('a patch replaces the one occurrence of its text', () => {
    expect(applyMutant(mutant, 'if (a < b) return;')).toBe('if (a <= b) return;');
  });

  it('a patch whose text is missing or not unique is refused', () => {
    expect(patchProblem(mutant, 'if (a > b) return;')).toMatch(/not in f\.ts/);
    expect(patchProblem(mutant, 'a < b || a < b')).toMatch(/more than once/);
    expect(() => applyMutant(mutant, 'nothing')).toThrow(MutantListError);
  });

  it('the list must be an array of entries with every field a non-empty string, and unique names', () => {
    expect(() => parseMutants('{')).toThrow(/not JSON/);
    expect(() => parseMutants('{}')).toThrow(/array/);
    expect(() => parseMutants(JSON.stringify([{ ...mutant, test: '' }]))).toThrow(/`test`/);
    expect(() => parseMutants(JSON.stringify([mutant, mutant]))).toThrow(/two mutants are called "m"/);
    let caught: unknown;
    try {
      parseMutants('[1]');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MutantListError);
    expect((caught as MutantListError).code).toBe('MUTANT_LIST_INVALID');
    expect(parseMutants(JSON.stringify([{ ...mutant, extra: 1 }]))).toEqual([mutant]);
  });

  it('the report is a table, and the run passes only when every mutant was killed', () => {
    const results: MutantResult[] = [
      { mutant, outcome: 'killed', ms: 12_345, detail: '' },
      { mutant: { ...mutant, name: 'other', test: 'pnpm test' }, outcome: 'SURVIVED', ms: 2000, detail: '' },
    ];
    expect(formatMutantTable(results).split('\n')).toEqual([
      'mutant  result    by         time',
      'm       killed    false      12.3 s',
      'other   SURVIVED  pnpm test  2.0 s',
    ]);
    expect(allKilled(results)).toBe(false);
    expect(allKilled([results[0]!, { ...results[0]!, outcome: 'killed by build' }])).toBe(true);
  });
});
