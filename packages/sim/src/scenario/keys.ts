import { ConfigError } from '@roster/kv-adapter';
import { type KeySelector } from '@roster/testing';
import type { KeyRef } from './Scenario.js';

/** A parsed {@link KeyRef}: the simple key (`leader`, `join`, `era`, `id/<node>`) and a nonce or every nonce. */
export interface ParsedKeyRef {
  readonly name: string;
  readonly nonce: number | '*';
}

const REF = /^(leader|join|era|id\/[A-Za-z0-9._@-]{1,128}) (\*|0|[1-9]\d{0,3})$/;

/** Parses `"leader 0"`, `"join *"`, `"era 0"`, `"id/n2 1"`; throws {@link ConfigError} for anything else. */
export function parseKeyRef(ref: KeyRef): ParsedKeyRef {
  const m = REF.exec(ref);
  if (!m) throw new ConfigError('keys', ref, 'Expected a key like "leader 0", "join *", "era 0" or "id/n2 1"');
  return { name: m[1]!, nonce: m[2] === '*' ? '*' : Number(m[2]) };
}

/** The fault injector's selector for `ref` under the namespace `prefix` (e.g. `roster/sim/chaos/`). */
export function keySelector(prefix: string, ref: KeyRef): KeySelector {
  const { name, nonce } = parseKeyRef(ref);
  return nonce === '*' ? { prefix: `${prefix}${name} ` } : `${prefix}${name} ${nonce}`;
}

/** The concrete keys of `ref` under `prefix`, for a window of `window` nonces. */
export function concreteKeys(prefix: string, ref: KeyRef, window: number): string[] {
  const { name, nonce } = parseKeyRef(ref);
  const nonces = nonce === '*' ? Array.from({ length: window }, (_, n) => n) : [nonce];
  return nonces.map((n) => `${prefix}${name} ${n}`);
}

/** True when `ref` can name the id key of `node`. */
export function namesIdKeyOf(ref: KeyRef | undefined, node: string): boolean {
  return ref === undefined || parseKeyRef(ref).name === `id/${node}`;
}
