import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Where Node would load `name` from when required in `dir`: the nearest node_modules up the tree. */
function resolvePackage(name: string, dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(at) === at) return undefined;
  }
}

/** Every package name reachable from `dir` through `dependencies` (and the top level's `extra`). */
function closure(dir: string, extra: (m: Manifest) => Record<string, string> = () => ({})): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (at: string, deps: Record<string, string>, optional: Record<string, string>): void => {
    for (const name of [...Object.keys(deps), ...Object.keys(optional)]) {
      const where = resolvePackage(name, at);
      if (where === undefined) {
        // An optional dependency for another platform is not installed; a required one must be.
        if (name in optional && !(name in deps)) continue;
        throw new Error(`cannot resolve ${name} from ${at}`);
      }
      names.add(name);
      if (seen.has(where)) continue;
      seen.add(where);
      const m = manifest(where);
      visit(where, m.dependencies ?? {}, m.optionalDependencies ?? {});
    }
  };
  const top = manifest(dir);
  visit(dir, { ...top.dependencies, ...extra(top) }, top.optionalDependencies ?? {});
  return names;
}

describe('@roster/client is really thin', () => {
  it('its production dependency closure holds neither ioredis nor any other Roster package', () => {
    const names = [...closure(root)];
    expect(names.filter((name) => name === 'ioredis' || name.startsWith('@roster/'))).toEqual([]);
    // Today it is empty: the client runs on Node's built-in modules alone.
    expect(names).toEqual([]);
  });

  it('the same walk over its development dependencies does find packages (the walk is not vacuous)', () => {
    const names = closure(root, (m) => m.devDependencies ?? {});
    expect(names.has('vitest')).toBe(true);
    expect(names.has('vite')).toBe(true);
  });

  it('its source imports nothing but its own modules and node: built-ins', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const imports = files.flatMap((file) =>
      [...readFileSync(join(root, 'src', file), 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!),
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:'))).toEqual([]);
  });
});
