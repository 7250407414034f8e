import { parseBroadcast, parseIdKeyValue, parseMember } from '@roster/follower';
import fc from 'fast-check';

/** Which kind of key a garbage value is meant for. */
export type GarbageTarget = 'leader' | 'join' | 'id';

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
 * Garbage for a key of `target`: mostly near misses (what a lenient parser would wrongly accept),
 * sometimes arbitrary text; always a value {@link isGarbage} accepts.
 */
export function garbageValue(target: GarbageTarget): fc.Arbitrary<string> {
  const near = target === 'leader' ? nearBroadcast : target === 'join' ? nearJoin : nearId;
  return fc.oneof({ weight: 4, arbitrary: near }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }).filter((v) => isGarbage(target, v));
}
