/**
 * The node `roster verify` runs by default: a Roster node (`createNode`, as `roster node` runs
 * it) that prints the JSON-lines contract of `roster node --json` on stdout and, while it leads,
 * writes to the run's fenced register every interval with its fencing token (the fencing pattern,
 * as a user's leader work would: `whileLeader()` hands it the token and aborts it when leadership
 * is lost). SIGTERM or SIGINT stops it gracefully (a leader says goodbye), prints `stopped` and
 * exits 0.
 *
 * node verifyNode.js --store URL --group G --env E --id ID --interval MS --timeout MS
 *   [--renew-deadline MS] [--register http://127.0.0.1:PORT/write]
 */
import { parseArgs } from 'node:util';
import { checkNodeOptions, createNode, type RosterNode } from '@roster/election';
import { connectStore } from '@roster/kv-adapter';
import type { NodeEvent } from '@roster/client';
import { nodeEventOf } from './nodeEventOf.js';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    group: { type: 'string' },
    env: { type: 'string' },
    id: { type: 'string' },
    interval: { type: 'string' },
    timeout: { type: 'string' },
    'renew-deadline': { type: 'string' },
    register: { type: 'string' },
  },
});

const number = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));
const settings = checkNodeOptions({
  group: values.group ?? 'roster-verify',
  env: values.env ?? 'verify',
  ...(values.id !== undefined && { id: values.id }),
  ...(values.interval !== undefined && { intervalMs: number(values.interval) }),
  ...(values.timeout !== undefined && { timeoutMs: number(values.timeout) }),
  ...(values['renew-deadline'] !== undefined && { renewDeadlineMs: number(values['renew-deadline']) }),
});
let stoppedPrinted = false;
/** Prints one line; nothing after `stopped`, which is always the last. */
const print = (line: NodeEvent): void => {
  if (stoppedPrinted) return;
  if (line.event === 'stopped') stoppedPrinted = true;
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

const kv = await connectStore(values.store ?? 'redis://127.0.0.1:6379', { commandTimeoutMs: settings.operationTimeoutMs, connectTimeoutMs: 10_000 });
const node: RosterNode = createNode({
  store: kv,
  group: settings.group,
  env: settings.env,
  id: settings.id,
  intervalMs: settings.intervalMs,
  timeoutMs: settings.timeoutMs,
  renewDeadlineMs: settings.renewDeadlineMs,
});
node.watch((update) => {
  const line = nodeEventOf(node.id, update, Date.now());
  if (line) print(line);
});

const register = values.register;
if (register !== undefined) {
  node.whileLeader(async ({ signal, token }) => {
    // One write per interval while this leadership lasts; a write the link holds arrives late,
    // after a newer leader's, and the register refuses it.
    while (!signal.aborted) {
      try {
        await fetch(register, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ node: node.id, token: String(token) }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(settings.intervalMs)]),
        });
      } catch {
        // A cut link, or leadership lost: the next round (if any) tries again.
      }
      await new Promise((resolve) => setTimeout(resolve, settings.intervalMs));
    }
  });
}

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await node.stop();
  print({ ts: Date.now(), id: node.id, event: 'stopped' });
  await kv.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
print({ ts: Date.now(), id: node.id, event: 'role', role: node.role, previous: null, reason: 'started' });
await node.start();
