import { randomUUID } from 'node:crypto';

/**
 * A fresh instance id: a random UUID without dashes (32 hex digits), as the primary protocol's clients
 * generate on start. A contender takes a new one each time it starts over after losing the role.
 *
 * @example
 * ```ts
 * generateInstanceId(); // '3b241101e2bb42558caf4136c566a962'
 * ```
 */
export function generateInstanceId(): string {
  return randomUUID().replaceAll('-', '');
}
