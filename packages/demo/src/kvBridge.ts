/**
 * A {@link KV} over IPC: when the demo has no Redis, the main process holds one `MemoryKV` and
 * every worker reaches it through a {@link BridgeKV} whose operations travel as messages
 * ({@link KVRequest} → {@link serveKV} → {@link KVReply}). Errors keep their Roster `code`, so the
 * node tells an unavailable key from an unavailable store as it would on Redis.
 */
import { KVClosedError, RosterError, type CompareAndSetOptions, type CompareAndSetResult, type KV, type KVCapabilities, type KVOperationOptions, type SetOptions } from '@roster/kv-adapter';
import { abortReason } from '@roster/kv-adapter/internal';

type Operation = 'get' | 'set' | 'delete' | 'append' | 'take' | 'getRange' | 'exchange' | 'compareAndSet' | 'time';

/** One KV operation, worker → main. `signal` never travels: the worker stops waiting on its own. */
export interface KVRequest {
  readonly kind: 'kv';
  readonly seq: number;
  readonly op: Operation;
  readonly key?: string;
  readonly value?: string;
  readonly expected?: string | null;
  readonly ttlMs?: number;
  readonly stampToken?: string;
  /** `compareAndSet`'s `prefix` option. */
  readonly prefix?: boolean;
  /** `getRange`'s byte offsets. */
  readonly start?: number;
  readonly end?: number;
}

/** An error as it crosses the process boundary. */
interface WireError {
  readonly name: string;
  readonly code: string | undefined;
  readonly message: string;
  readonly key?: string;
}

/** The outcome of a {@link KVRequest}, main → worker. */
export type KVReply =
  | { readonly kind: 'kv-reply'; readonly seq: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: 'kv-reply'; readonly seq: number; readonly ok: false; readonly error: WireError };

/** Runs `request` on `kv` (in the process that owns the store) and returns the reply to send back. */
export async function serveKV(kv: KV, request: KVRequest): Promise<KVReply> {
  const { seq, key = '', value = '' } = request;
  const ttl = request.ttlMs === undefined ? {} : { ttlMs: request.ttlMs };
  try {
    let result: unknown;
    switch (request.op) {
      case 'get':
        result = await kv.get(key);
        break;
      case 'set':
        result = await kv.set(key, value, ttl);
        break;
      case 'delete':
        result = await kv.delete(key);
        break;
      case 'append':
        result = await kv.append(key, value);
        break;
      case 'take':
        result = await kv.take(key);
        break;
      case 'getRange':
        result = await kv.getRange(key, request.start ?? 0, request.end ?? -1);
        break;
      case 'exchange':
        result = await kv.exchange(key, value);
        break;
      case 'compareAndSet':
        result = await kv.compareAndSet(key, request.expected ?? null, value, {
          ...ttl,
          ...(request.stampToken !== undefined && { stampToken: request.stampToken }),
          ...(request.prefix === true && { prefix: true }),
        });
        break;
      case 'time':
        result = await kv.time();
        break;
    }
    return { kind: 'kv-reply', seq, ok: true, value: result ?? null };
  } catch (error) {
    const e = error as Partial<RosterError> & { key?: unknown };
    return {
      kind: 'kv-reply',
      seq,
      ok: false,
      error: {
        name: typeof e.name === 'string' ? e.name : 'Error',
        code: typeof e.code === 'string' ? e.code : undefined,
        message: typeof e.message === 'string' ? e.message : String(error),
        ...(typeof e.key === 'string' && { key: e.key }),
      },
    };
  }
}

/** The worker's side: a {@link KV} whose every operation is a message to the store's owner. */
export class BridgeKV implements KV {
  readonly name = 'BridgeKV';
  readonly capabilities: KVCapabilities;
  readonly #send: (request: KVRequest) => void;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  #seq = 0;
  #closed = false;

  /** `send` delivers a request to the process that runs {@link serveKV}; feed its replies to {@link receive}. */
  constructor(capabilities: KVCapabilities, send: (request: KVRequest) => void) {
    this.capabilities = capabilities;
    this.#send = send;
  }

  /** Settles the operation a reply answers; replies to abandoned operations are dropped. */
  receive(reply: KVReply): void {
    const pending = this.#pending.get(reply.seq);
    if (!pending) return;
    this.#pending.delete(reply.seq);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(toError(reply.error));
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#call({ op: 'get', key }, options) as Promise<string | null>;
  }
  async set(key: string, value: string, options?: SetOptions): Promise<void> {
    await this.#call({ op: 'set', key, value, ...ttl(options) }, options);
  }
  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#call({ op: 'delete', key }, options) as Promise<boolean>;
  }
  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#call({ op: 'append', key, value }, options) as Promise<number>;
  }
  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#call({ op: 'take', key }, options) as Promise<string | null>;
  }
  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#call({ op: 'getRange', key, start, end }, options) as Promise<string>;
  }
  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#call({ op: 'exchange', key, value }, options) as Promise<string | null>;
  }
  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    const stamp = options?.stampToken === undefined ? {} : { stampToken: options.stampToken };
    const prefix = options?.prefix === true ? { prefix: true } : {};
    return this.#call({ op: 'compareAndSet', key, value, expected, ...ttl(options), ...stamp, ...prefix }, options) as Promise<CompareAndSetResult>;
  }
  time(options?: KVOperationOptions): Promise<number> {
    return this.#call({ op: 'time' }, options) as Promise<number>;
  }

  /** Fails every operation in flight and every later one with `KVClosedError`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const { reject } of this.#pending.values()) reject(new KVClosedError(this.name));
    this.#pending.clear();
  }

  #call(request: Omit<KVRequest, 'kind' | 'seq'>, options: KVOperationOptions | undefined): Promise<unknown> {
    if (this.#closed) return Promise.reject(new KVClosedError(this.name));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#pending.delete(seq);
        reject(abortReason(signal!));
      };
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T): void => {
          signal?.removeEventListener('abort', onAbort);
          fn(value);
        };
      this.#pending.set(seq, { resolve: settle(resolve), reject: settle(reject) });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#send({ kind: 'kv', seq, ...request });
    });
  }
}

function ttl(options: SetOptions | undefined): { ttlMs?: number } {
  return options?.ttlMs === undefined ? {} : { ttlMs: options.ttlMs };
}

/** A {@link WireError} back as an error: a Roster error keeps its code, so `X.is(error)` still holds. */
function toError(wire: WireError): Error {
  const error = wire.code === undefined ? new Error(wire.message) : new RosterError(wire.code, wire.message);
  error.name = wire.name;
  if (wire.key !== undefined) Object.defineProperty(error, 'key', { value: wire.key, enumerable: true });
  return error;
}
