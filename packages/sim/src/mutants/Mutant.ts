/**
 * A source mutant: a deliberate bug written into the production code as a text patch, with the
 * test command that must fail once it is applied. The list lives in `packages/sim/mutants.json`;
 * `pnpm mutants` applies each entry to a scratch copy of the repository and runs its command.
 */
export interface Mutant {
  /** Short name, used with `pnpm mutants --only <name>`. */
  readonly name: string;
  /** The bug, in one sentence. */
  readonly description: string;
  /** The file to patch, relative to the repository root. */
  readonly file: string;
  /** Exact text to replace; it must occur exactly once in the file. */
  readonly find: string;
  /** The text that replaces it. */
  readonly replace: string;
  /** A shell command, run from the repository root, that must exit non-zero on the mutant. */
  readonly test: string;
}

/** A `mutants.json` that does not hold a list of well-formed {@link Mutant}s. */
export class MutantListError extends Error {
  readonly code = 'MUTANT_LIST_INVALID';
  override readonly name = 'MutantListError';
}

const FIELDS = ['name', 'description', 'file', 'find', 'replace', 'test'] as const;

/** Parses the text of `mutants.json`: an array of {@link Mutant}s with unique names. */
export function parseMutants(text: string): Mutant[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new MutantListError(`mutants.json is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(data)) throw new MutantListError('mutants.json must hold an array of mutants');
  const names = new Set<string>();
  return data.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null) throw new MutantListError(`entry ${i} is not an object`);
    const record = entry as Record<string, unknown>;
    for (const field of FIELDS) {
      if (typeof record[field] !== 'string' || record[field] === '') {
        throw new MutantListError(`entry ${i} needs a non-empty string \`${field}\`, got ${JSON.stringify(record[field])}`);
      }
    }
    const mutant = Object.fromEntries(FIELDS.map((f) => [f, record[f]])) as unknown as Mutant;
    if (names.has(mutant.name)) throw new MutantListError(`two mutants are called ${JSON.stringify(mutant.name)}`);
    names.add(mutant.name);
    return mutant;
  });
}

/** Why a mutant cannot be applied to `source`, or `undefined` when its `find` occurs exactly once. */
export function patchProblem(mutant: Mutant, source: string): string | undefined {
  const first = source.indexOf(mutant.find);
  if (first < 0) return `the text to replace is not in ${mutant.file}`;
  if (source.indexOf(mutant.find, first + 1) >= 0) return `the text to replace occurs more than once in ${mutant.file}`;
  return undefined;
}

/** `source` with the mutant applied (its `find` must occur exactly once: see {@link patchProblem}). */
export function applyMutant(mutant: Mutant, source: string): string {
  const problem = patchProblem(mutant, source);
  if (problem !== undefined) throw new MutantListError(`${mutant.name}: ${problem}`);
  const at = source.indexOf(mutant.find);
  return source.slice(0, at) + mutant.replace + source.slice(at + mutant.find.length);
}
