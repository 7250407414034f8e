import type { KVCapabilities } from '@roster/kv-adapter';
import type { Role } from '@roster/election';
import type { NodeEvent } from '@roster/cli';
import type { KVReply, KVRequest } from './kvBridge.js';

/** Where a demo worker finds the store. */
export type WorkerStore =
  /** A Redis server: the worker connects with its own client. */
  | { readonly kind: 'redis'; readonly url: string }
  /** The main process's in-memory store, reached over IPC (see `kvBridge.ts`). */
  | { readonly kind: 'memory'; readonly capabilities: KVCapabilities };

/** The task a demo worker runs: one node, until told to stop. */
export interface WorkerTask {
  readonly id: string;
  readonly group: string;
  readonly env: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly store: WorkerStore;
}

/** What a worker's task resolves to once its node stopped gracefully. */
export interface WorkerResult {
  readonly id: string;
  readonly stats: Readonly<Record<string, number>>;
}

/** Worker → main. */
export type WorkerMessage =
  /** First message: the worker's process id (what the demo kills). */
  | { readonly kind: 'hello'; readonly id: string; readonly pid: number }
  /** A node update, as `roster node --json` prints it. */
  | { readonly kind: 'event'; readonly event: NodeEvent }
  /**
   * Once per interval: what the node sees now (the Version moves every interval), and the
   * leader-key nonce holding the leader's broadcast.
   */
  | { readonly kind: 'tick'; readonly id: string; readonly role: Role; readonly version: number; readonly pongRoundTripMs?: number; readonly nonce?: number; readonly storeRoundTripMs?: number }
  /** A warning or error the node logged. */
  | { readonly kind: 'log'; readonly id: string; readonly level: 'warn' | 'error'; readonly message: string }
  | KVRequest;

/** Main → worker. */
export type MainMessage =
  /** Stop the node gracefully and end the task. */
  | { readonly kind: 'stop' }
  | KVReply;

/** True for messages of ours, as opposed to tinypool's own. */
export function isOwnMessage(message: unknown): message is { kind: string } {
  return (
    typeof message === 'object' &&
    message !== null &&
    !(message as { __tinypool_worker_message__?: unknown }).__tinypool_worker_message__ &&
    typeof (message as { kind?: unknown }).kind === 'string'
  );
}
