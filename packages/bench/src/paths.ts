/** Where things are, from this package's root (the same from `src/` under vitest and from `dist/`). */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root of `@roster/bench`. */
export const packageRoot: string = fileURLToPath(new URL('..', import.meta.url));

/** The repository root. */
export const repoRoot: string = join(packageRoot, '..', '..');

/** A built script of this package, e.g. `drivers/etcdDriver.js`. */
export function builtScript(relative: string): string {
  return join(packageRoot, 'dist', relative);
}

/** The `roster` CLI script of the built `@roster/cli` (a workspace dependency of this package). */
export function rosterCliPath(): string {
  return join(packageRoot, 'node_modules', '@roster', 'cli', 'dist', 'bin', 'roster.js');
}
