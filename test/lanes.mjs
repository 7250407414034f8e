// `pnpm test` of the integration tests: the two lanes of vitest.config.ts ("core" and "stores"),
// each one file at a time, side by side, then the project "alone". Most of their time is spent
// waiting on real servers and timers, so two lanes on two cores keep `pnpm test` within its
// budget. (Vitest runs the projects of one invocation one after the other when each is limited to
// one file at a time, hence one process per lane.) Extra arguments go to every lane; the exit code
// is the worst of them.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** Runs one project of vitest.config.ts; resolves to its exit code. */
function lane(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', '--project', project, ...process.argv.slice(2)], { stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  });
}

const codes = await Promise.all([lane('core'), lane('stores')]);
// Then the files that run with nothing beside them (see vitest.config.ts).
codes.push(await lane('alone'));
process.exitCode = Math.max(...codes);
