import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeEntry, encodeEntryTemplate, STAMP_TOKEN, type HeartbeatEntry } from '../src/entryCodec.js';

const token = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => /^\S+$/u.test(s));
/** A node id: the one rule for ids (`isValidId`). */
const id = fc.array(fc.constantFrom(...'abcXYZ019._@-'), { minLength: 1, maxLength: 128 }).map((c) => c.join(''));
const entry = fc.record(
  {
    id,
    utype: token,
    timestamp: fc.integer({ min: 0, max: 2 ** 52 }),
    endpoint: fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
  },
  { requiredKeys: ['id', 'utype', 'timestamp'] },
);

describe('entry codec', () => {
  it('round-trips every valid entry', () => {
    fc.assert(
      fc.property(entry, (e: HeartbeatEntry) => {
        expect(decodeEntry(encodeEntry(e), e.utype)).toEqual({ kind: 'entry', entry: e });
      }),
    );
  });

  it('the stamp token appears exactly once in a template, at the timestamp, whatever the fields hold', () => {
    fc.assert(
      fc.property(entry, fc.integer({ min: 0, max: 2 ** 52 }), (e, now) => {
        const template = encodeEntryTemplate(e);
        expect(template.split(STAMP_TOKEN)).toHaveLength(2);
        const stamped = template.split(STAMP_TOKEN).join(String(now));
        expect(decodeEntry(stamped, e.utype)).toEqual({ kind: 'entry', entry: { ...e, timestamp: now } });
      }),
    );
  });

  it('reads a missing key as empty', () => {
    expect(decodeEntry(null, 'a')).toEqual({ kind: 'empty' });
  });

  it('ignores unknown fields (a newer writer), but not wrong known ones', () => {
    expect(decodeEntry('{"id":"x","utype":"a","timestamp":5,"zone":"eu"}', 'a')).toEqual({
      kind: 'entry',
      entry: { id: 'x', utype: 'a', timestamp: 5 },
    });
    expect(decodeEntry('{"id":"x","utype":"a","timestamp":5,"endpoint":null}', 'a').kind).toBe('corrupt');
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json()), (raw) => {
        expect(['entry', 'corrupt']).toContain(decodeEntry(raw, 'a').kind);
      }),
    );
  });
});
