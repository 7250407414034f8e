// `pnpm soak [--minutes N]`: runs test/soak/soak.soak.ts with ROSTER_SOAK_MINUTES=N (default 10).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' } } });
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  process.stderr.write(`pnpm soak: --minutes must be a positive number, got ${JSON.stringify(values.minutes)}\n`);
  process.exit(2);
}
const cwd = fileURLToPath(new URL('..', import.meta.url));
const result = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.soak.config.ts'], {
  cwd,
  stdio: 'inherit',
  env: { ...process.env, ROSTER_SOAK_MINUTES: String(minutes) },
});
process.exit(result.status ?? 1);
