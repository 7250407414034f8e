/**
 * The parsers of the values Roster reads from the store, fed arbitrary text: the leader
 * broadcast, a member token, the join key (through the leader's JoinPoller), the id-key value and
 * the primary heartbeat entry. Each returns its typed "invalid" answer and never throws, and what
 * it accepts is exactly what the matching formatter writes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatBroadcast,
  formatMember,
  isValidId,
  parseBroadcast,
  parseIdKeyValue,
  parseMember,
  type Broadcast,
  type Member,
} from '@roster/follower';
import { CompoundKey, MemoryKV } from '@roster/kv-adapter';
import { MemoryLogger, VirtualClock } from '@roster/testing';
import { JoinPoller } from '../../packages/election/src/JoinPoller.js';
import { applyListStep, diffLists, formatListStep, parseListStep } from '../../packages/follower/src/listStep.js';
import { decodeEntry, encodeEntry, type HeartbeatEntry } from '../../packages/primary/src/entryCodec.js';
import { anyText, fuzzParams, mutated } from '../support/fuzz.js';

// The protocol's limits (docs/protocol.md): longest node id, highest nonce, largest weight.
const MAX_ID_LENGTH = 128;
const MAX_NONCE = 1023;
const MAX_WEIGHT = 1_000_000;

const ID_CHARS = [...'abcXYZ019._@-'];
const id = fc.array(fc.constantFrom(...ID_CHARS), { minLength: 1, maxLength: MAX_ID_LENGTH }).map((c) => c.join(''));
const member: fc.Arbitrary<Member> = fc.record({ id, weight: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: MAX_WEIGHT })) });
const safeUint = fc.oneof(fc.nat(1000), fc.maxSafeNat());

const broadcast: fc.Arbitrary<Broadcast> = fc
  .record({
    era: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
    nonce: fc.integer({ min: 0, max: MAX_NONCE }),
    version: safeUint,
    id,
    members: fc.uniqueArray(member, { selector: (m) => m.id, maxLength: 20 }),
  })
  .map((b) => (b.version === 0 ? { ...b, members: [{ id: b.id, weight: b.members[0]?.weight ?? 1 }] } : b));

const BROADCAST_ALPHABET = ['0', '1', '9', ' ', ' ', 'a', 'b', ':', ':2', '-', '.', '\t', '\n', '+', 'e', '00', '1023', '1024'];

/** Calls `parse` and fails the property with what it threw, if anything. */
function total<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new Error(`threw instead of answering: ${String(error)}`);
  }
}

/**
 * The spelling a valid member token may differ in from {@link formatMember}'s: an explicit `:1`
 * weight, which `formatMember` leaves out. Accepted on purpose (a weight of 1 written out is
 * still a weight of 1) and the only difference the parsers tolerate.
 */
function canonical(text: string): string {
  // Only a weight: in `id:weight:priority` a priority of 1 is written as it is.
  return text.replace(/(^| )([^ :]+):1(?= |$)/g, '$1$2');
}

describe('the leader broadcast', () => {
  it('parseBroadcast answers every text with ok or a reason, and never throws', () => {
    fc.assert(
      fc.property(anyText(BROADCAST_ALPHABET), (text) => {
        const result = total(() => parseBroadcast(text));
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) expect(typeof result.reason).toBe('string');
      }),
      fuzzParams,
    );
  });

  it('what it accepts is well-formed, and formats back to the text read (up to an explicit `:1` weight)', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(BROADCAST_ALPHABET), mutated(broadcast.map(formatBroadcast))), (text) => {
        const result = total(() => parseBroadcast(text));
        if (!result.ok) return;
        const b = result.broadcast;
        expect(Number.isSafeInteger(b.era) && b.era >= 1).toBe(true);
        expect(Number.isInteger(b.nonce) && b.nonce >= 0 && b.nonce <= MAX_NONCE).toBe(true);
        expect(Number.isSafeInteger(b.version) && b.version >= 0).toBe(true);
        expect(isValidId(b.id)).toBe(true);
        expect(new Set(b.members.map((m) => m.id)).size).toBe(b.members.length);
        for (const m of b.members) expect(isValidId(m.id) && Number.isInteger(m.weight) && m.weight >= 1 && m.weight <= MAX_WEIGHT).toBe(true);
        expect(formatBroadcast(b)).toBe(canonical(text));
      }),
      fuzzParams,
    );
  });

  it('round-trips: format, then parse, gives the same broadcast', () => {
    fc.assert(
      fc.property(broadcast, (b) => {
        expect(parseBroadcast(formatBroadcast(b))).toEqual({ ok: true, broadcast: b });
      }),
      fuzzParams,
    );
  });
});

describe('a list step', () => {
  const STEP_ALPHABET = [' ', '-', '+', ':', '0', '1', '7', '12', 'a', 'b', 'n1', 'n2', 'x', '\n', '00', '99999999999999999'];
  const base: Member[] = ['a', 'b', 'n1', 'n2'].map((id) => ({ id, weight: 1 }));
  const list = { era: 1, nonce: 0, id: 'a', epoch: 1 };
  const next = { ...list, epoch: 2 };

  it('parseListStep answers every text with a step or undefined, and applyListStep a list or undefined: neither throws, and a list built has no duplicate', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(STEP_ALPHABET), mutated(fc.constant('1 0 a 2 1 0 a 1 4 -b +1:x'))), (text) => {
        const step = total(() => parseListStep(text));
        if (step === undefined) return;
        const built = total(() => applyListStep(base, step));
        if (built !== undefined) {
          expect(built).toHaveLength(step.count);
          expect(new Set(built.map((m) => m.id)).size).toBe(built.length);
        }
      }),
      fuzzParams,
    );
  });

  it('round-trips: a step between two lists, formatted and parsed, builds the second from the first', () => {
    const ids = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'n1', 'n2'), { maxLength: 10 });
    fc.assert(
      fc.property(ids, ids, (from, to) => {
        const a = from.map((id) => ({ id, weight: 1 }));
        const b = to.map((id) => ({ id, weight: 1 }));
        const step = diffLists(list, a, next, b);
        if (step !== undefined) expect(applyListStep(a, parseListStep(formatListStep(step))!)).toEqual(b);
      }),
      fuzzParams,
    );
  });
});

describe('a member token', () => {
  it('parseMember answers every text with a valid member or undefined, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(anyText([...ID_CHARS, ':', ':0', ':1', '1000000', '1000001', ' ']), mutated(member.map(formatMember))), (text) => {
        const m = total(() => parseMember(text));
        if (m === undefined) return;
        expect(isValidId(m.id)).toBe(true);
        expect(Number.isInteger(m.weight) && m.weight >= 1 && m.weight <= MAX_WEIGHT).toBe(true);
        expect(formatMember(m)).toBe(canonical(text));
      }),
      fuzzParams,
    );
  });

  it('round-trips', () => {
    fc.assert(
      fc.property(member, (m) => {
        expect(parseMember(formatMember(m))).toEqual(m);
      }),
      fuzzParams,
    );
  });
});

describe('the join key, as the leader reads it', () => {
  /** One poll of the join key holding `value`: the members handed to the leader, and the tokens dropped. */
  async function poll(value: string): Promise<{ joiners: Member[]; garbage: number }> {
    const kv = new MemoryKV({ maxValueBytes: 64 * 1024 * 1024 });
    const key = new CompoundKey('roster/fuzz/dev/join', { window: 4 });
    // A store holds well-formed text only (Redis hands back invalid UTF-8 as U+FFFD).
    if (value !== '') await kv.set(key.keys()[1]!, value.toWellFormed());
    const joiners: Member[] = [];
    let garbage = 0;
    const poller = new JoinPoller({
      kv,
      key,
      clock: new VirtualClock(),
      logger: new MemoryLogger(),
      intervalMs: 100,
      opTimeoutMs: 50,
      onJoin: (members) => {
        for (const m of members) joiners.push(m);
      },
      onGarbage: () => void garbage++,
    });
    await poller.poll();
    expect(await kv.get(key.keys()[1]!)).toBeNull(); // taken, whatever it held
    return { joiners, garbage };
  }

  it('hands over only valid members, counts every other token as garbage, and never throws', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyText([...ID_CHARS, ' ', ':', ':3'], { huge: false }), mutated(fc.array(member, { maxLength: 10 }).map((ms) => ms.map((m) => ` ${formatMember(m)}`).join('')))), async (value) => {
        const { joiners, garbage } = await poll(value);
        const tokens = value.toWellFormed().split(' ').filter((t) => t !== '');
        expect(joiners.length + garbage).toBe(tokens.length);
        for (const m of joiners) expect(isValidId(m.id) && m.weight >= 1 && m.weight <= MAX_WEIGHT).toBe(true);
        expect(joiners.map((m) => ` ${formatMember(m)}`).join('')).toBe(canonical(tokens.filter((t) => parseMember(t)).map((t) => ` ${t}`).join('')));
      }),
      fuzzParams,
    );
  });

  it('a huge join value (hundreds of thousands of tokens) is taken and sorted in one poll, without throwing', async () => {
    for (const value of [' x'.repeat(500_000), ' x:1'.repeat(250_000), ' !'.repeat(500_000), 'x'.repeat(1_000_000)]) {
      const { joiners, garbage } = await poll(value);
      expect(joiners.length + garbage).toBe(value.split(' ').filter((t) => t !== '').length);
    }
  });

  it('round-trips: what joiners append is what the leader admits, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(member, { maxLength: 20 }), async (members) => {
        const { joiners, garbage } = await poll(members.map((m) => ` ${formatMember(m)}`).join(''));
        expect(garbage).toBe(0);
        expect(joiners).toEqual(members);
      }),
      fuzzParams,
    );
  });
});

describe('the id-key value', () => {
  const valid = fc.oneof(
    fc.constant('LEAVE'),
    fc.tuple(fc.constantFrom('PING', 'PONG'), safeUint).map(([kind, seq]) => `${kind} ${seq}`),
    fc.tuple(safeUint, safeUint).map(([seq, rtt]) => `PING ${seq} ${rtt}`),
  );

  it('parseIdKeyValue answers PING/PONG with a safe sequence number, LEAVE, or undefined, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(['PING', 'PONG', 'LEAVE', ' ', '0', '1', '9', '-', '\n']), mutated(valid)), (text) => {
        const v = total(() => parseIdKeyValue(text));
        if (v === undefined) return;
        const rtt = v.kind === 'ping' && v.pongRoundTripMs !== undefined ? ` ${v.pongRoundTripMs}` : '';
        const formatted = v.kind === 'leave' ? 'LEAVE' : `${v.kind.toUpperCase()} ${v.seq}${rtt}`;
        expect(formatted).toBe(text);
        if (v.kind !== 'leave') expect(Number.isSafeInteger(v.seq) && v.seq >= 0).toBe(true);
      }),
      fuzzParams,
    );
  });

  it('round-trips', () => {
    fc.assert(
      fc.property(valid, (text) => {
        const v = parseIdKeyValue(text)!;
        const rtt = v.kind === 'ping' && v.pongRoundTripMs !== undefined ? ` ${v.pongRoundTripMs}` : '';
        expect(v.kind === 'leave' ? 'LEAVE' : `${v.kind.toUpperCase()} ${v.seq}${rtt}`).toBe(text);
      }),
      fuzzParams,
    );
  });
});

describe('the primary heartbeat entry', () => {
  const entry: fc.Arbitrary<HeartbeatEntry> = fc.record(
    {
      id,
      utype: fc.constant('billing'),
      timestamp: fc.oneof(fc.maxSafeNat(), fc.double({ min: 0, max: 1e15, noNaN: true })),
      endpoint: fc.string({ unit: 'binary', minLength: 1, maxLength: 1024 }),
    },
    { requiredKeys: ['id', 'utype', 'timestamp'] },
  );
  const JSON_ALPHABET = ['{', '}', '"', ':', ',', 'id', 'utype', 'timestamp', 'endpoint', 'billing', '1', '-1', 'null', 'true', '[', ']', '\\u0000', ' '];

  it('decodeEntry answers every text with empty, entry or corrupt, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(JSON_ALPHABET), mutated(entry.map(encodeEntry))), (text) => {
        const decoded = total(() => decodeEntry(text, 'billing'));
        expect(['entry', 'corrupt']).toContain(decoded.kind);
        if (decoded.kind !== 'entry') return;
        const e = decoded.entry;
        // Nothing malformed is adopted: the entry obeys every rule, and is a fixed point of the codec.
        expect(e.utype).toBe('billing');
        expect(isValidId(e.id)).toBe(true); // a node id, the one rule for ids
        expect(Number.isFinite(e.timestamp) && e.timestamp >= 0).toBe(true);
        if (e.endpoint !== undefined) expect(e.endpoint.length >= 1 && e.endpoint.length <= 1024 && e.endpoint.isWellFormed()).toBe(true);
        expect(decodeEntry(encodeEntry(e), 'billing')).toEqual(decoded);
      }),
      fuzzParams,
    );
  });

  it('round-trips, and an entry of another role type is corrupt', () => {
    fc.assert(
      fc.property(entry, (e) => {
        expect(decodeEntry(encodeEntry(e), 'billing')).toEqual({ kind: 'entry', entry: e });
        expect(decodeEntry(encodeEntry(e), 'payments').kind).toBe('corrupt');
      }),
      fuzzParams,
    );
  });
});
