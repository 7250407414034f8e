import { checkNodeOptions } from '@roster/election';
import { ConfigError, MemoryKV, Namespace } from '@roster/kv-adapter';
import { PrimaryContender } from '@roster/primary';
import { describe, expect, it } from 'vitest';
import { runClusterTest } from '../src/commands/clusterTest.js';
import { PRIMARY_TIMING } from '../src/commands/primary.js';
import { CliError } from '../src/CliError.js';
import { runCli } from '../src/index.js';
import { configProblem, NODE_TIMING, timingProblem, type Timing } from '../src/internal/configProblems.js';
import { defineFlags, flag } from '../src/internal/flags.js';
import { fakeIO } from './support/fakeIO.js';

const NODE = ['node', '--store', 'redis://127.0.0.1:1', '--group', 'k', '--env', 'e', '--connect-timeout', '200'];

async function stderrOf(args: readonly string[]): Promise<{ code: number; err: string }> {
  const io = fakeIO();
  const code = await runCli(args, io);
  expect(io.out).toBe('');
  return { code, err: io.err };
}

describe('a derived value that breaks a timing rule is explained in the flags the user has', () => {
  it('roster node --interval 1000 --timeout 2001: no renew deadline fits, so raise --timeout', async () => {
    expect(await stderrOf([...NODE, '--interval', '1000', '--timeout', '2001'])).toEqual({
      code: 2,
      err:
        'roster node: --timeout 2001 with --interval 1000 leaves no valid default --renew-deadline (--timeout / 2 = 1000 must be more than ' +
        '--interval 1000 and less than --timeout − --interval = 1001): raise --timeout to at least 2002\n',
    });
  });

  it('roster node --interval 1000 --timeout 2100 --renew-deadline 1050 is valid: it goes on to the store', async () => {
    const { code, err } = await stderrOf([...NODE, '--interval', '1000', '--timeout', '2100', '--renew-deadline', '1050']);
    expect(code).toBe(2);
    expect(err).toMatch(/^roster node: cannot reach the store: redis:\/\/127\.0\.0\.1:1: .* \(store URL from --store\)\n$/);
  });

  it('a --renew-deadline out of range says the range, or that none is and --timeout must grow', async () => {
    expect((await stderrOf([...NODE, '--timeout', '5000', '--renew-deadline', '900'])).err).toBe(
      'roster node: --renew-deadline 900 must be more than --interval 1000 and less than --timeout − --interval = 4000: set it between 1001 and 3999\n',
    );
    expect((await stderrOf([...NODE, '--timeout', '2001', '--renew-deadline', '1000'])).err).toBe(
      'roster node: --renew-deadline 1000 must be more than --interval 1000 and less than --timeout − --interval = 1001: no value is, so raise --timeout to at least 2002\n',
    );
  });

  it('the default interval is named as such', async () => {
    expect((await stderrOf([...NODE, '--timeout', '2001'])).err).toMatch(/^roster node: --timeout 2001 with the default --interval 1000 leaves no valid default --renew-deadline /);
  });

  it('cluster-test, which has no --renew-deadline, says only what it can change', async () => {
    const io = fakeIO();
    expect(await runClusterTest(['-r', 'redis://127.0.0.1:1', '--interval', '1000', '--timeout', '2001'], io)).toBe(2);
    expect(io.err).toBe(
      'cluster-test: --timeout 2001 with --interval 1000 leaves no valid renew deadline (--timeout / 2 = 1000 must be more than --interval 1000 and less than --timeout − --interval = 1001): raise --timeout to at least 2002\n',
    );
  });

  it('roster primary run: the default --timeout 5000 with --interval 3000', async () => {
    expect((await stderrOf(['primary', 'run', '--store', 'redis://h', '--group', 'k', '--env', 'e', '--type', 't', '--interval', '3000'])).err).toBe(
      'roster primary run: the default --timeout 5000 is not more than twice --interval 3000 (2 × 3000 = 6000): set --timeout to at least 6001 or --interval to at most 2499\n',
    );
  });
});

describe('the timing defaults the CLI shows are the libraries\'', () => {
  it('a node: I = 1000, T = 5I, R = ⌊T/2⌋', () => {
    const cases: { intervalMs?: number; timeoutMs?: number }[] = [{}, { intervalMs: 300 }, { intervalMs: 7, timeoutMs: 2101 }];
    for (const options of cases) {
      const settings = checkNodeOptions({ group: 'c', env: 'e', ...options });
      const I = options.intervalMs ?? NODE_TIMING.intervalMs;
      const T = options.timeoutMs ?? NODE_TIMING.timeoutOf(I);
      expect([settings.intervalMs, settings.timeoutMs, settings.renewDeadlineMs]).toEqual([I, T, NODE_TIMING.renewDeadlineOf(T)]);
    }
  });

  it('a primary contender: I = 1000, T = 5000', () => {
    const contender = new PrimaryContender({ store: new MemoryKV(), namespace: new Namespace('c', 'e'), utype: 't' });
    expect({ intervalMs: contender.intervalMs, timeoutMs: contender.timeoutMs }).toEqual(PRIMARY_TIMING);
  });
});

/** The timing as a command would describe it: every flag present, given unless derived. */
function timingOf(I: number, T: number, R: number | undefined): Timing {
  return {
    interval: { value: I, flag: '--interval', given: true },
    timeout: { value: T, flag: '--timeout', given: true },
    renewDeadline: { value: R ?? NODE_TIMING.renewDeadlineOf(T), flag: '--renew-deadline', given: R !== undefined },
  };
}

function nodeRejects(I: number, T: number, R: number | undefined): ConfigError | undefined {
  try {
    checkNodeOptions({ group: 'c', env: 'e', intervalMs: I, timeoutMs: T, ...(R !== undefined && { renewDeadlineMs: R }) });
    return undefined;
  } catch (error) {
    if (ConfigError.is(error)) return error;
    throw error;
  }
}

describe('the explanation agrees with createNode\'s rules, and its advice works', () => {
  const cases: [number, number, number | undefined][] = [];
  for (const I of [1, 2, 3, 10, 99, 1000]) {
    for (const T of [I, 2 * I, 2 * I + 1, 2 * I + 2, 2 * I + 3, 3 * I, 5 * I]) {
      for (const R of [undefined, I - 1, I, I + 1, Math.floor(T / 2), T - I - 1, T - I, T]) {
        if (R === undefined || R >= 1) cases.push([I, T, R]);
      }
    }
  }

  it(`over ${cases.length} combinations of I, T and R (given or derived)`, () => {
    for (const [I, T, R] of cases) {
      const where = `I=${I} T=${T} R=${R}`;
      const rejected = nodeRejects(I, T, R);
      const timing = timingOf(I, T, R);
      if (rejected === undefined) {
        expect(timingProblem('timeoutMs', timing), where).toBeUndefined();
        expect(timingProblem('renewDeadlineMs', timing), where).toBeUndefined();
        continue;
      }
      const text = timingProblem(rejected.field, timing);
      expect(text, `${where}: ${rejected.message}`).toBeDefined();
      // Each change the advice names mends the rule it is about; with R derived, the whole
      // configuration (a given R may break its own rule too, which the next run reports).
      const mended = (after: ConfigError | undefined): void => {
        if (R === undefined || rejected.field === 'renewDeadlineMs') expect(after?.message, `${where}: ${text}`).toBeUndefined();
        else expect(after?.field, `${where}: ${text}`).not.toBe(rejected.field);
      };
      const raiseT = /--timeout to at least (\d+)/.exec(text!)?.[1];
      const lowerI = /--interval to at most (\d+)/.exec(text!)?.[1];
      const between = /between (\d+) and (\d+)/.exec(text!);
      expect(raiseT ?? lowerI ?? between, `${where}: ${text}`).toBeTruthy();
      // Raising T with R given out of range cannot help R: the advice then sets R anew.
      const keptR = rejected.field === 'renewDeadlineMs' ? undefined : R;
      if (raiseT) mended(nodeRejects(I, Number(raiseT), keptR));
      if (lowerI) mended(nodeRejects(Number(lowerI), T, keptR));
      if (between) {
        mended(nodeRejects(I, T, Number(between[1])));
        mended(nodeRejects(I, T, Number(between[2])));
      }
    }
  });
});

describe('configProblem: a ConfigError as one line naming the flag', () => {
  const table = defineFlags('roster try', {
    group: flag.string('group', { placeholder: 'GROUP', help: '' }),
    id: flag.string('id', { placeholder: 'ID', help: '', defaultText: 'a fresh UUID' }),
  });

  it('a field of a flag the user gave: invalid <flag>, and the library\'s message as it wrote it', () => {
    const parsed = table.parse(['--group', 'a/b'], {});
    const error = new ConfigError('group', 'a/b', 'Expected `group` to be [1 to 64] characters');
    const problem = configProblem(parsed, error) as CliError;
    expect(problem).toBeInstanceOf(CliError);
    expect(problem.message).toBe('roster try: invalid --group: Expected `group` to be [1 to 64] characters, got "a/b"');
    expect(problem.cause).toBe(error);
  });

  it('a field of a flag left at its default, and a field no flag sets', () => {
    const parsed = table.parse([], {});
    expect((configProblem(parsed, new ConfigError('id', 'x y', 'Expected `id` to be…')) as Error).message).toBe('roster try: invalid default --id: Expected `id` to be…, got "x y"');
    expect((configProblem(parsed, new ConfigError('weight', 0, 'Expected `weight` to be positive')) as Error).message).toBe(
      'roster try: invalid configuration: Expected `weight` to be positive, got 0',
    );
  });

  it('anything but a ConfigError is returned as it is', () => {
    const other = new Error('boom');
    expect(configProblem(table.parse([], {}), other)).toBe(other);
  });
});
