import { parseBroadcast, parseIdKeyValue, parseMember } from '@roster/follower';
import fc from 'fast-check';

/** Which kind of key a garbage value is meant for. */
export type GarbageTarget = 'leader' | 'join' | 'id' | 'era';

/**
 * True when `value` cannot be read as anything a key of `target` holds: not a broadcast (leader
 * key), no valid member token (join key), not `PING n`, `PONG n` or `LEAVE` (id key). Only such
 * values are garbage: a well-formed value is indistinguishable from a real one.
 */
export function isGarbage(target: GarbageTarget, value: string): boolean {
  switch (target) {
    case 'leader':
      return !parseBroadcast(value).ok;
    case 'join':
      return value.split(' ').every((token) => token === '' || parseMember(token) === undefined);
    case 'id':
      return parseIdKeyValue(value) === undefined;
    case 'era':
      return !/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value));
  }
}

const word = fc.constantFrom('ghost', 'n1', 'n2', 'n3');

/**
 * Near misses of a broadcast: one detail off (spacing, a leading zero, a sign, a bad id…). Half the
 * eras come from 1 … 3, the eras real leaders hold in a run, so a lenient parser would take a
 * near miss for a rival of the same era.
 */
const nearBroadcast = fc
  .tuple(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 99 })), fc.integer({ min: 1, max: 99 }), word, fc.nat(9))
  .map(([era, version, id, shape]) => {
    const shapes = [
      `${era}  0 ${version} ${id} ${id}`,
      `0${era} 0 ${version} ${id} ${id}`,
      ` ${era} 0 ${version} ${id} ${id}`,
      `${era} 0 ${version} ${id} ${id} `,
      `-${era} 0 ${version} ${id} ${id}`,
      `${era} 0 ${version} ${id}! ${id}`,
      `${era} 0 0 ${id} ${id}x`,
      `${era} 0 ${version} ${id} ${id} ${id}`,
      `${era} 2048 ${version} ${id} ${id}`,
      `${era} 0 ${version}`,
    ];
    return shapes[shape]!;
  });

/** Near misses of join-key tokens: every token invalid, some only by a character. */
const nearJoin = fc
  .array(
    fc.tuple(word, fc.nat(4)).map(([id, shape]) => [`${id}!`, `${id}:0`, `!${id}`, `${id}:99999999`, `${id}:x`][shape]!),
    { minLength: 1, maxLength: 3 },
  )
  .map((tokens) => ` ${tokens.join(' ')}`);

/** Near misses of id-key values. */
const nearId = fc
  .tuple(fc.nat(99), fc.nat(6))
  .map(([seq, shape]) => [`PING  ${seq}`, `PING 0${seq}`, `PONG -${seq}`, 'LEAVE ', ' LEAVE', `PING ${seq}.5`, 'leave'][shape]!);

/**
 * Ugly values at a leader key, as a stray client or a broken tool leaves them: no header at all
 * (empty, text, a snowman), a truncated header, a header with absurd numbers, a valid header over
 * a garbage tail. None parses as a broadcast; each makes a reader take another path than a near
 * miss does (a header read that finds no header, a header that parses over a value that does not).
 */
const uglyBroadcast = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 99 }), word, fc.nat(7))
  .map(([era, version, id, shape]) => {
    const shapes = [
      '',
      'GARBAGE x ☃ 99999999999999999999999 zzz',
      `${era} 0`,
      `${era} 0 ${version} `,
      `99999999999999999999999 0 ${version} ${id} ${id}`,
      `${era} 0 99999999999999999999999 ${id} ${id}`,
      `${era} 0 ${version} ${id} ${id} ☃☃ zzz`,
      `${era} 0 ${version} ${id} ${id}\n${id}`,
    ];
    return shapes[shape]!;
  });

/**
 * Garbage for a key of `target`: mostly near misses (what a lenient parser would wrongly accept),
 * at a leader key ugly values too, sometimes arbitrary text; always a value {@link isGarbage} accepts.
 */
export function garbageValue(target: GarbageTarget): fc.Arbitrary<string> {
  const near = target === 'leader' ? fc.oneof(nearBroadcast, uglyBroadcast) : target === 'join' ? nearJoin : target === 'id' ? nearId : nearEra;
  return fc.oneof({ weight: 4, arbitrary: near }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }).filter((v) => isGarbage(target, v));
}

/** Near misses of an era record. */
const nearEra = fc.tuple(fc.integer({ min: 1, max: 99 }), fc.nat(4)).map(([era, shape]) => [`0${era}`, ` ${era}`, `${era}.5`, `-${era}`, '99999999999999999999999'][shape]!);

/**
 * A huge garbage value, as `{ value, repeat }` (see the `garbage` action): tens of KiB of
 * text, with or without a valid-looking header in front, that a reader must neither choke on nor
 * read again at every step.
 */
export function hugeGarbage(target: GarbageTarget): fc.Arbitrary<{ readonly value: string; readonly repeat: number }> {
  const unit = target === 'leader' ? fc.constantFrom('☃ GARBAGE ', '1 0 7 n1 n1 ☃ ') : fc.constant('☃ ');
  return fc.tuple(unit, fc.integer({ min: 2_000, max: 6_000 })).map(([value, repeat]) => ({ value, repeat }));
}
