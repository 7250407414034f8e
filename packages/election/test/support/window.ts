import { RosterKeys, formatBroadcast, type Broadcast } from '@roster/follower';
import { LeaderWindow, type LeaderWindowRead } from '@roster/follower/internal';
import { MemoryKV, Namespace, silentLogger } from '@roster/kv-adapter';
import { VirtualClock } from '@roster/testing';
import { resolveConfig, type ResolvedConfig } from '../../src/config.js';

/** A MemoryKV on a virtual clock with the keys of one cluster, and real reads of its leader window. */
export class WindowFixture {
  readonly clock = new VirtualClock();
  readonly kv = new MemoryKV({ clock: this.clock });
  readonly keys = new RosterKeys(new Namespace('test', 'spec'), 4);
  readonly #window = new LeaderWindow({ kv: this.kv, key: this.keys.leader(), clock: this.clock, logger: silentLogger, opTimeoutMs: 50, listStepBudgetMs: 25 });

  /** The resolved configuration of node `id` on this store (I = 100, T = 500). */
  config(id: string): ResolvedConfig {
    return resolveConfig({ store: this.kv, group: 'test', env: 'spec', id, intervalMs: 100, timeoutMs: 500, clock: this.clock });
  }

  /** Writes `b` at its nonce of the leader key. */
  async put(b: Broadcast): Promise<string> {
    const raw = formatBroadcast(b);
    await this.kv.set(this.keys.leader().at(b.nonce), raw);
    return raw;
  }

  read(): Promise<LeaderWindowRead> {
    return this.#window.read();
  }
}

/** A broadcast of leader `id` at `era`/`nonce`, Version `version`, listing only itself. */
export function broadcast(id: string, era: number, nonce = 0, version = 1): Broadcast {
  return { id, era, nonce, version, members: [{ id, weight: 1 }] };
}
