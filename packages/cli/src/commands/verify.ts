import { formatReport, LINK_FAULTS, PROCESS_FAULTS, reportJson, runVerify, VerifyError, type FaultKind, type VerifyProgress, type VerifyResult } from '@roster/verify';
import { ExitCode } from '../CliError.js';
import { connectTimeoutFlag, jsonFlag, storeFileFlag, storeFlag } from '../internal/commonFlags.js';
import { defineFlags, flag, helpFlag, wrap } from '../internal/flags.js';
import { problem } from '../internal/problems.js';
import { storeHelp } from '../internal/storeHelp.js';
import { STORE_KINDS } from '../internal/storeForms.js';
import { requireStoreUrl } from '../internal/storeSource.js';
import type { Command, OutputStream } from './Command.js';

const NAME = 'roster verify';

/** The flags of `roster verify`, in the order `--help` and docs/cli.md list them. */
export const VERIFY_FLAGS = defineFlags(NAME, {
  store: storeFlag(),
  storeFile: storeFileFlag(),
  durationS: flag.integer('duration', { placeholder: 'SECONDS', unit: 'seconds', min: 5, max: 86_400, help: 'how long the nemesis runs (measuring the store and cleaning up take a few seconds more)', defaultValue: 60 }),
  seed: flag.integer('seed', { placeholder: 'N', min: 0, max: 2 ** 31 - 1, help: 'the seed of the fault schedule: the same seed gives the same schedule (the report prints the one used)', defaultText: 'a random one' }),
  nodes: flag.integer('nodes', { placeholder: 'COUNT', min: 2, max: 16, help: 'how many nodes to run', defaultValue: 3 }),
  intervalMs: flag.integer('interval', { placeholder: 'MS', unit: 'milliseconds', help: 'the nodes’ interval I', defaultText: 'the one advised for the measured round trip', fields: ['intervalMs'] }),
  timeoutMs: flag.integer('timeout', { placeholder: 'MS', unit: 'milliseconds', help: 'the nodes’ timeout T', defaultText: '5 × --interval', fields: ['timeoutMs'] }),
  renewDeadlineMs: flag.integer('renew-deadline', { placeholder: 'MS', unit: 'milliseconds', help: 'the nodes’ renew deadline R', defaultText: '--timeout / 2', fields: ['renewDeadlineMs'] }),
  faults: flag.custom('faults', {
    placeholder: 'KINDS',
    help: `the faults to inject, comma-separated, from ${[...LINK_FAULTS, ...PROCESS_FAULTS].join(', ')}`,
    docs: '([the faults](#roster-verify))',
    expected: `a comma-separated list of ${[...LINK_FAULTS, ...PROCESS_FAULTS].join(', ')}`,
    parse: parseFaults,
    defaultValue: undefined as readonly FaultKind[] | undefined,
    defaultText: 'all of them',
  }),
  command: flag.string('command', {
    placeholder: 'COMMAND',
    help: 'run this node program instead of Roster’s (words split at spaces; {store} {group} {env} {id} {interval} {timeout} {renewDeadline} {register} are replaced): any Node.js program that prints the JSON lines of roster node --json',
    docs: '([below](#checking-another-implementation---command))',
    defaultText: 'Roster’s node with a fenced writer',
  }),
  connectTimeoutMs: connectTimeoutFlag(),
  json: jsonFlag('print the result as one JSON object on stdout (the history included) instead of the report'),
  help: helpFlag(),
});

const F = VERIFY_FLAGS;
const f = (key: keyof typeof F.flags): string => F.syntax(key);
const n = (key: keyof typeof F.flags): string => F.name(key);

const HELP = `Usage: roster verify [${f('store')} | ${f('storeFile')}] [options]

${wrap(
  `Checks Roster on your store (${STORE_KINDS}) before you trust it: starts nodes on this machine, each reaching the store through a local link it controls, and for the whole run injects faults from a seeded schedule (the link cut silently, reset, losing replies, slowed, flapping; nodes killed, paused and terminated), records every line each node prints, then checks that no two nodes ever reported leader at once, that fencing tokens rose, that a register refused every stale write, that a lost leader was replaced within T + 2I and that the group recovered. Prints a report: each fault and what followed it, any violation with the lines around it, the store's round trip and the interval, timeout and renew deadline it can carry. Safe on a production store: everything lives under a fresh group (roster-verify-…) deleted afterwards, and each node makes about 3 operations per interval. A progress line is shown on stderr; Ctrl-C ends the run early (the history so far is checked).`,
  96,
).join('\n')}

${storeHelp(F, ['store', 'storeFile'])}

Options:
${F.helpLines(['durationS', 'seed', 'nodes', 'intervalMs', 'timeoutMs', 'renewDeadlineMs', 'faults', 'command', 'connectTimeoutMs', 'json', 'help'])}

Exit codes:
  0  no violation
  1  a violation (the report names the rule and prints the lines around it), or a node
     process that exited by itself (a crash: the report shows its error)
  2  bad arguments, or the store unreachable
  5  inconclusive: no violation, but no network cut reached a connection to the store (e.g.
     a TLS store, whose connections go direct), so the cuts proved nothing

Examples:
  roster verify ${n('store')} redis://127.0.0.1:6379
  roster verify ${n('store')} postgres://roster@db.internal/app ${n('durationS')} 300 ${n('seed')} 42
  roster verify ${n('store')} redis://127.0.0.1:6379 ${n('json')} > verify.json
  roster verify ${n('store')} redis://127.0.0.1:6379 ${n('command')} 'node my-elector.mjs {store} {group} {id}'
`;

/** `roster verify`: the nemesis and the checker against the user's store. */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check leader election on a store under real faults (cuts, kills, pauses) and print a report',
  help: HELP,
  async run(args, io) {
    const parsed = F.parse(args, io.env);
    const { values } = parsed;
    const store = requireStoreUrl(NAME, { url: values.store, source: parsed.source('store'), file: values.storeFile }, io.env);
    const command = values.command?.split(/\s+/).filter(Boolean);
    if (command !== undefined && command.length === 0) throw problem(NAME, `${n('command')} is empty`);
    const controller = new AbortController();
    const unlisten = io.onSignal(() => controller.abort());
    const display = new ProgressLine(io.stderr);
    let result: VerifyResult;
    try {
      result = await runVerify({
        store: store.url,
        durationMs: values.durationS * 1000,
        nodes: values.nodes,
        ...(values.seed !== undefined && { seed: values.seed }),
        ...(values.intervalMs !== undefined && { intervalMs: values.intervalMs }),
        ...(values.timeoutMs !== undefined && { timeoutMs: values.timeoutMs }),
        ...(values.renewDeadlineMs !== undefined && { renewDeadlineMs: values.renewDeadlineMs }),
        ...(command !== undefined && { command }),
        ...(values.faults !== undefined && { kinds: values.faults }),
        ...(values.connectTimeoutMs !== undefined && { connectTimeoutMs: values.connectTimeoutMs }),
        onProgress: (p) => display.show(p),
        signal: controller.signal,
      });
    } catch (error) {
      if (error instanceof VerifyError || (error instanceof Error && error.name === 'ConfigError')) {
        throw problem(NAME, error.message.replaceAll(store.url, store.display), { where: `store URL from ${store.where}`, cause: error });
      }
      throw error;
    } finally {
      display.clear();
      unlisten();
    }
    if (values.json) io.stdout.write(`${JSON.stringify(reportJson(result))}\n`);
    else {
      const faults = values.faults === undefined ? '' : ` ${n('faults')} ${values.faults.join(',')}`;
      const replay = `roster verify ${n('store')} ${store.display} ${n('durationS')} ${values.durationS} ${n('nodes')} ${values.nodes} ${n('seed')} ${result.seed} ${n('intervalMs')} ${result.timing.intervalMs} ${n('timeoutMs')} ${result.timing.timeoutMs} ${n('renewDeadlineMs')} ${result.timing.renewDeadlineMs}${faults}`;
      io.stdout.write(formatReport(result, { store: store.display, replay }).replaceAll(store.url, store.display));
    }
    return result.verdict === 'passed' ? ExitCode.ok : result.verdict === 'inconclusive' ? ExitCode.inconclusive : ExitCode.failure;
  },
};

/** `cut-silent,kill` as fault kinds; `undefined` for a list with an unknown or no kind. */
function parseFaults(raw: string): readonly FaultKind[] | undefined {
  const known: readonly string[] = [...LINK_FAULTS, ...PROCESS_FAULTS];
  const kinds = raw.split(',').map((k) => k.trim()).filter(Boolean);
  return kinds.length > 0 && kinds.every((k) => known.includes(k)) ? [...new Set(kinds)] as FaultKind[] : undefined;
}

/**
 * The progress display on stderr: one line redrawn in place on a terminal; elsewhere a line at
 * each fault and every 10 s.
 */
class ProgressLine {
  readonly #out: OutputStream;
  #last = '';
  #lastPrinted = -Infinity;
  #drawn = false;

  constructor(out: OutputStream) {
    this.#out = out;
  }

  show(p: VerifyProgress): void {
    const elapsed = Math.min(p.elapsedMs, p.durationMs) / 1000;
    const text =
      p.phase === 'running'
        ? `roster verify: ${elapsed.toFixed(0)}/${(p.durationMs / 1000).toFixed(0)} s, faults ${p.faultsDone}/${p.faultsPlanned}${p.fault ? `, now ${p.fault.kind} of ${p.fault.target}` : ''}, leader ${p.leader ?? 'none'}`
        : `roster verify: ${p.phase}…`;
    if (this.#out.isTTY) {
      const width = Math.max(20, (this.#out.columns ?? 100) - 1);
      this.#out.write(`\r${text.slice(0, width).padEnd(Math.min(width, this.#last.length))}`);
      this.#drawn = true;
      this.#last = text;
      return;
    }
    // Off a terminal: a line when a fault opens or closes, or the phase changes, and every 10 s.
    const key = `${p.phase} ${p.faultsDone} ${p.fault?.kind ?? ''}`;
    if (key !== this.#last || p.elapsedMs - this.#lastPrinted >= 10_000) {
      this.#out.write(`${text}\n`);
      this.#lastPrinted = p.elapsedMs;
    }
    this.#last = key;
  }

  clear(): void {
    if (this.#drawn) this.#out.write(`\r${' '.repeat(this.#last.length)}\r`);
    this.#drawn = false;
  }
}
