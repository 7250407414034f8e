/**
 * The readers of streams between processes, fed arbitrary input: the client's `/events` line
 * parser and its line splitter, and the demo's store bridge between worker and main process.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryKV, RosterError } from '@roster/kv-adapter';
import type { NodeEvent } from '@roster/cli';
import { parseEvent } from '../../packages/client/src/internal/parseEvent.js';
import { LineSplitter } from '../../packages/client/src/internal/LineSplitter.js';
import { serveKV, type KVRequest } from '../../packages/demo/src/kvBridge.js';
import { anyText, fuzzParams, mutated } from '../support/fuzz.js';

const id = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
const role = fc.constantFrom('follower', 'candidate', 'leader', 'observer');
const ts = fc.integer({ min: 0, max: 2 ** 45 });
const nodeEvent: fc.Arbitrary<NodeEvent> = fc.oneof(
  fc.record({ ts, id, event: fc.constant('role' as const), role, previous: fc.option(role, { nil: null }), reason: fc.string() }),
  fc.record({ ts, id, event: fc.constant('leader' as const), leader: id, era: fc.nat(), nonce: fc.nat(1023), token: fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String) }),
  fc.constant({ ts: 1, id: 'a', event: 'leader' as const, leader: null, era: null, nonce: null, token: null }),
  fc.record({ ts, id, event: fc.constant('members' as const), version: fc.nat(), members: fc.array(id), added: fc.array(id), removed: fc.array(id) }),
) as fc.Arbitrary<NodeEvent>;

const JSON_ALPHABET = ['{', '}', '"ts":1', '"id":"a"', '"event":', '"role"', '"leader"', '"members"', '"stopped"', '"role":"leader"', '"previous":null', '"reason":"x"', '"token":"9"', '"era":1', '"nonce":0', '"version":1', '[]', '["a"]', ',', 'null', '-1', '1e400', '"'];

describe("the client's /events line parser", () => {
  it('parseEvent answers any line with event, unknown or invalid, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(JSON_ALPHABET), mutated(nodeEvent.map((e) => JSON.stringify(e)))), (line) => {
        let parsed;
        try {
          parsed = parseEvent(line);
        } catch (error) {
          throw new Error(`threw ${String(error)}`);
        }
        expect(['event', 'unknown', 'invalid']).toContain(parsed.kind);
        if (parsed.kind !== 'event') return;
        // Nothing malformed is adopted: the fields the client keeps have their contract types.
        const e = parsed.event;
        if (e.event === 'role') expect(['follower', 'candidate', 'leader', 'observer']).toContain(e.role);
        if (e.event === 'leader' && e.leader) {
          expect(e.leader.id.length).toBeGreaterThan(0);
          expect(Number.isSafeInteger(e.leader.era) && e.leader.era >= 0 && Number.isSafeInteger(e.leader.nonce) && e.leader.nonce >= 0).toBe(true);
          expect(typeof e.leader.token).toBe('bigint');
        }
        if (e.event === 'members') {
          expect(Number.isSafeInteger(e.version) && e.version >= 0).toBe(true);
          for (const m of e.members) expect(typeof m === 'string' && m !== '').toBe(true);
        }
      }),
      fuzzParams,
    );
  });

  it('round-trips every event of the contract', () => {
    fc.assert(
      fc.property(nodeEvent, (event) => {
        const parsed = parseEvent(JSON.stringify(event));
        expect(parsed.kind).toBe('event');
        if (parsed.kind !== 'event') return;
        const e = parsed.event;
        if (event.event === 'role') expect(e).toEqual({ event: 'role', role: event.role });
        if (event.event === 'members') expect(e).toEqual({ event: 'members', version: event.version, members: event.members });
        if (event.event === 'leader') {
          expect(e).toEqual({ event: 'leader', leader: event.leader === null ? undefined : { id: event.leader, era: event.era, nonce: event.nonce, token: BigInt(event.token!) } });
        }
      }),
      fuzzParams,
    );
  });
});

describe("the client's line splitter", () => {
  /** Feeds `text` cut at `cuts`; returns the lines and the number of overflows. */
  function split(text: string, cuts: number[], maxLength: number): { lines: string[]; overflows: number } {
    const lines: string[] = [];
    let overflows = 0;
    const splitter = new LineSplitter((line) => lines.push(line), () => void overflows++, maxLength);
    const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const at of [...points, text.length]) {
      splitter.push(text.slice(from, at));
      from = at;
    }
    return { lines, overflows };
  }

  const text = fc.oneof(anyText(['\n', '\r', '\r\n', 'a', 'b', 'xxxxxxxx'], { huge: false }), fc.array(fc.constantFrom('ab\n', 'x'.repeat(40), '\r\n', '\n', 'yy'), { maxLength: 30 }).map((p) => p.join('')));

  it('gives the same lines and overflows however the text is cut into chunks, and every line is within the limit', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 10 }), fc.integer({ min: 1, max: 64 }), (t, cuts, max) => {
        const whole = split(t, [], max);
        const cut = split(t, cuts, max);
        expect(cut).toEqual(whole);
        for (const line of whole.lines) expect(line.length).toBeLessThanOrEqual(max);
        // What it gives is exactly the complete lines within the limit, without their `\r`.
        const complete = t.split('\n').slice(0, -1);
        expect(whole.lines).toEqual(complete.filter((l) => l.length <= max).map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
        expect(whole.overflows).toBe(complete.filter((l) => l.length > max).length + (t.split('\n').at(-1)!.length > max ? 1 : 0));
      }),
      fuzzParams,
    );
  });

  it('keeps at most the limit of an unfinished line in memory, even for megabytes without a newline', () => {
    const lines: string[] = [];
    let overflows = 0;
    const splitter = new LineSplitter((l) => lines.push(l), () => void overflows++, 1024);
    for (let i = 0; i < 1000; i++) splitter.push('z'.repeat(4096));
    splitter.push('\nok\n');
    expect(overflows).toBe(1);
    expect(lines).toEqual(['ok']);
  });
});

describe("the demo's store bridge", () => {
  const OPS = ['get', 'set', 'delete', 'append', 'take', 'compareAndSet', 'time', 'drop', '__proto__'];
  const request = fc.record({
    kind: fc.constant('kv'),
    seq: fc.nat(),
    op: fc.oneof(fc.constantFrom(...OPS), fc.string()),
    key: fc.oneof(fc.string({ unit: 'binary' }), fc.anything()),
    value: fc.oneof(fc.string({ unit: 'binary' }), fc.anything()),
    expected: fc.oneof(fc.constant(null), fc.string(), fc.anything()),
    ttlMs: fc.oneof(fc.integer(), fc.double(), fc.anything()),
    stampToken: fc.oneof(fc.string(), fc.anything()),
  });

  it('serveKV answers any request with a reply of its seq, and an error only as a Roster error code, never a rejection', async () => {
    const kv = new MemoryKV();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const reply = await serveKV(kv, r as unknown as KVRequest);
        expect(reply.kind).toBe('kv-reply');
        expect(reply.seq).toBe(r.seq);
        if (!reply.ok) {
          expect(reply.error.code).toBeDefined();
          expect(RosterError.is(new RosterError(reply.error.code!, reply.error.message), reply.error.code)).toBe(true);
        }
      }),
      fuzzParams,
    );
  });
});
