/**
 * The demo's worker: one real {@link RosterNode} per tinypool task, in its own child process, so
 * that killing the process is a real crash. It reports to the main process over IPC and stops
 * gracefully when told to.
 */
import { createNode, type RosterNode } from '@roster/election';
import { InstrumentedKV } from '@roster/http';
import { type KV, type Logger } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { toNodeEvent } from '@roster/cli/internal';
import { BridgeKV } from './kvBridge.js';
import { isOwnMessage, type MainMessage, type WorkerMessage, type WorkerResult, type WorkerTask } from './messages.js';

function send(message: WorkerMessage): void {
  process.send?.(message);
}

/** Forwards warnings and errors to the main process, which shows them with `--verbose`. */
function forwardingLogger(id: string): Logger {
  const forward =
    (level: 'warn' | 'error') =>
    (fields: object, message?: string): void => {
      const err = (fields as { err?: unknown }).err;
      const detail = err instanceof Error ? `: ${err.message}` : '';
      send({ kind: 'log', id, level, message: `${message ?? ''}${detail}` });
    };
  return { debug() {}, info() {}, warn: forward('warn'), error: forward('error') };
}

/** Runs one demo node until the main process sends `stop`. The tinypool task entry point. */
export default async function runDemoNode(task: WorkerTask): Promise<WorkerResult> {
  // Orphaned (the demo was killed): leave at once rather than linger as a node nobody watches.
  process.once('disconnect', () => process.exit(0));
  // Ctrl-C reaches the whole process group; the main process then stops this node gracefully.
  process.on('SIGINT', () => {});
  send({ kind: 'hello', id: task.id, pid: process.pid });

  let bridge: BridgeKV | undefined;
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const onMessage = (message: unknown): void => {
    if (!isOwnMessage(message)) return;
    const m = message as MainMessage;
    if (m.kind === 'stop') requestStop();
    else if (m.kind === 'kv-reply') bridge?.receive(m);
  };
  process.on('message', onMessage);

  let kv: KV;
  if (task.store.kind === 'redis') {
    kv = await RedisKV.connect({ url: task.store.url, connectTimeoutMs: 5000 });
  } else {
    kv = bridge = new BridgeKV(task.store.capabilities, send);
  }
  // Timed, for the store round trip the page shows.
  const store = new InstrumentedKV(kv);
  try {
    const self: RosterNode = createNode({
      store,
      group: task.group,
      env: task.env,
      id: task.id,
      intervalMs: task.intervalMs,
      timeoutMs: task.timeoutMs,
      logger: forwardingLogger(task.id),
    });
    self.watch((update) => {
      const event = toNodeEvent(self.id, update, Date.now());
      if (event) send({ kind: 'event', event });
    });
    await self.start();
    const tick = setInterval(() => {
      const pongRoundTripMs = self.role === 'leader' ? undefined : self.latency.pongRoundTripMs;
      const nonce = self.broadcastNonce;
      const storeRoundTripMs = store.health.storeRoundTripMs;
      send({
        kind: 'tick',
        id: self.id,
        role: self.role,
        version: self.members.version,
        ...(pongRoundTripMs !== undefined && { pongRoundTripMs }),
        ...(nonce !== undefined && { nonce }),
        ...(storeRoundTripMs !== undefined && { storeRoundTripMs }),
      });
    }, task.intervalMs);
    await stopRequested;
    clearInterval(tick);
    await self.stop();
    return { id: self.id, stats: self.stats };
  } finally {
    process.off('message', onMessage);
    await kv.close();
  }
}
