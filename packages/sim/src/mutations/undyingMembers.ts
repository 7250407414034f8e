import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader that takes any read of a follower's id key as a fresh PING (as if it compared PINGs by
 * presence instead of by sequence number): a member that crashed is never dropped.
 */
export const undyingMembers: Mutation = {
  name: 'undying-members',
  description: 'the leader counts every id-key read as a fresh PING, so crashed members are never dropped',
  rejectedBy: 'convergence',
  wrapKV(kv, context) {
    const flip = new Map<string, boolean>();
    const undying = (key: string, value: string | null): string | null => {
      const m = value === null ? null : /^(?:PING|PONG) (\d+)(?: \d+)?$/.exec(value);
      if (context.role() !== 'leader' || !key.startsWith(`${context.prefix}id/`) || !m) return value;
      // Alternate between the sequence number seen and the one before: always "new", and
      // still one the follower accepts back as a PONG.
      const odd = !flip.get(key);
      flip.set(key, odd);
      const seq = Number(m[1]);
      return `PING ${odd && seq > 0 ? seq - 1 : seq}`;
    };
    return overrideKV(kv, {
      get: async (key, options) => undying(key, await kv.get(key, options)),
      // The PONG worker learns what its PONG replaced.
      exchange: async (key, value, options) => undying(key, await kv.exchange(key, value, options)),
    });
  },
};
