import { loadavg } from 'node:os';
import { spawnTracked, terminate, type Tracked } from './processes.js';

/** A CPU hog: busy loops that load the machine while a section runs (`pnpm bench --hog N`). */
export interface CpuHog {
  /** How many busy loops run. */
  readonly loops: number;
  /** The 1-minute load average, at the start and now. */
  load(): { readonly atStart: number; readonly now: number };
  /** Ends every loop. */
  stop(): Promise<void>;
}

/**
 * Starts `loops` busy loops (`node -e 'for(;;);'`), each a process of its own at the bench's own
 * niceness (0 when the bench runs at 0): each takes a whole core when it gets one, so on two cores
 * two loops leave the leader process, the store and the worker processes (niced 10) what the
 * scheduler gives them beside two always-runnable processes of higher priority.
 */
export function startCpuHog(loops: number): CpuHog {
  const atStart = Math.round(loadavg()[0]! * 100) / 100;
  const procs: Tracked[] = [];
  for (let i = 0; i < loops; i++) procs.push(spawnTracked(process.execPath, ['-e', 'for(;;);']));
  return {
    loops,
    load: () => ({ atStart, now: Math.round(loadavg()[0]! * 100) / 100 }),
    stop: async () => {
      await Promise.all(procs.map((p) => terminate(p, 1000)));
    },
  };
}
