import { randomUUID } from 'node:crypto';
import { ConfigError } from '@roster/kv-adapter';

/** Longest node id accepted. */
export const MAX_ID_LENGTH = 128;

/** Largest weight (libcluster thread count) a member may carry. */
export const MAX_WEIGHT = 1_000_000;

const ID = /^[A-Za-z0-9._@-]{1,128}$/;

/** A member of the group as the leader publishes it. */
export interface Member {
  /** The node id. */
  readonly id: string;
  /** The member's weight (its thread count for `@roster/cluster`). @defaultValue 1 */
  readonly weight: number;
  /**
   * The member's priority (`createNode({ priority })`): among candidates the higher wins, and a
   * leader hands over to a healthy member of higher priority. Absent means 0, which is how a
   * member of a node without priorities reads. @defaultValue 0
   */
  readonly priority?: number;
}

/**
 * True when `id` is a valid node id: 1 to 128 of letters, digits and `. _ @ -`. The one rule for
 * every id Roster takes: a node's (`createNode({ id })`), a `@roster/cluster` instance's
 * (`createCluster({ id })`) and a primary contender's (`@roster/primary`).
 */
export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID.test(id);
}

/**
 * A fresh node id: a random UUID without dashes (32 hex digits), as libcluster generates. The
 * default id of a node, a `@roster/cluster` instance and a primary contender.
 *
 * @example
 * ```ts
 * newId(); // '3b241101e2bb42558caf4136c566a962'
 * ```
 */
export function newId(): string {
  return randomUUID().replaceAll('-', '');
}

/** Throws {@link ConfigError} naming `field` unless `id` is a valid node id. */
export function checkId(id: unknown, field = 'id'): asserts id is string {
  if (!isValidId(id)) {
    throw new ConfigError(field, id, `Expected \`${field}\` to be 1 to ${MAX_ID_LENGTH} characters of letters, digits and . _ @ - (no whitespace)`);
  }
}

/** Throws {@link ConfigError} unless `weight` is an integer from 1 to {@link MAX_WEIGHT}. */
export function checkWeight(weight: unknown, field = 'weight'): asserts weight is number {
  if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > MAX_WEIGHT) {
    throw new ConfigError(field, weight, `Expected \`${field}\` to be an integer from 1 to ${MAX_WEIGHT}`);
  }
}

/**
 * Formats a member as it travels in the join key and the broadcast: `id` when its weight is 1 and
 * its priority 0 (so a group of such members reads exactly as a plain list of ids, as before
 * priorities existed), `id:weight` when only the weight differs, `id:weight:priority` otherwise.
 */
export function formatMember(member: Member): string {
  const priority = member.priority ?? 0;
  if (priority !== 0) return `${member.id}:${member.weight}:${priority}`;
  return member.weight === 1 ? member.id : `${member.id}:${member.weight}`;
}

const WEIGHT = /^[1-9]\d{0,6}$/;
const PRIORITY = /^[1-9]\d{0,11}$/;

/**
 * Parses one `id`, `id:weight` or `id:weight:priority` token strictly (a priority is written only
 * when it is not 0, so `id:1:0` is refused); `undefined` when it is not valid.
 */
export function parseMember(token: string): Member | undefined {
  const [id, w, p, ...rest] = token.split(':');
  if (!isValidId(id) || rest.length > 0) return undefined;
  if (w === undefined) return { id, weight: 1 };
  if (!WEIGHT.test(w)) return undefined;
  const weight = Number(w);
  if (weight > MAX_WEIGHT) return undefined;
  if (p === undefined) return { id, weight };
  if (!PRIORITY.test(p)) return undefined;
  return { id, weight, priority: Number(p) };
}

/** True when two members are the same record: id, weight and priority. */
export function sameMember(a: Member, b: Member): boolean {
  return a.id === b.id && a.weight === b.weight && (a.priority ?? 0) === (b.priority ?? 0);
}

