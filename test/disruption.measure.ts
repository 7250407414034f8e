/**
 * The disruption table of docs/faults.md: `ROSTER_TIMINGS=100/500,200/1000,1000/5000
 * ROSTER_KEYS=leader,join,follower-id,leader-id npx vitest run --config vitest.measure.config.ts`
 * (from test/). Prints one Markdown row per timing, key and fault; asserts nothing (the bounds are in shard-fault.test.ts).
 */
import { it } from 'vitest';
import { formatRow, measureDisruption, type FaultedKey, type ShardFault } from './support/disruption.js';

const timings = (process.env.ROSTER_TIMINGS ?? '100/500,200/1000,1000/5000').split(',').map((t) => t.split('/').map(Number) as [number, number]);
const faults = (process.env.ROSTER_FAULTS ?? 'kill,stop').split(',') as ShardFault[];
const keys = (process.env.ROSTER_KEYS ?? 'leader').split(',') as FaultedKey[];

it('measures the disruption of a dead or frozen shard', { timeout: 1_800_000 }, async () => {
  const rows: string[] = [];
  for (const [intervalMs, timeoutMs] of timings) {
    for (const key of keys) {
      for (const fault of faults) {
        const report = await measureDisruption({ intervalMs, timeoutMs, fault, key });
        rows.push(formatRow(report));
        process.stdout.write(`${formatRow(report)}\n${JSON.stringify(report)}\n`);
      }
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
});
