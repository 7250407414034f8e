import { compareLeadership, type Broadcast } from './broadcast.js';
import { sameMember, type Member } from './ids.js';

// The Version rules both sides of the protocol agree on: what is news to a reader, and how a
// leader numbers its publications so that a reader can tell from the header alone whether the
// member list changed. (What a compare-and-set over a leader-key value expects is the writers',
// in `@roster/election`.)

/**
 * True when `next` is news over `known`: a better leadership, or a later version of the same one
 * (anything is news over nothing).
 */
export function supersedes(next: Broadcast, known: Broadcast | undefined): boolean {
  if (known === undefined) return true;
  const c = compareLeadership(next, known);
  return c < 0 || (c === 0 && next.version > known.version);
}

/**
 * How a leader numbers its publications so that a reader can tell from the Version alone whether
 * the member list changed: a publication that changes the list jumps to the next multiple of
 * `LIST_STRIDE`, one that repeats it adds 1. Versions still grow with every publication (as the
 * era/nonce/version protocol requires), so any reader sees the same progress; Roster's followers read only the broadcast's header
 * while `listEpoch(version)` stays the same, and fetch the whole value when it moves.
 */
export const LIST_STRIDE = 1000;

/** The list epoch of a version: it changes whenever the leader's member list changed. */
export function listEpoch(version: number): number {
  return Math.floor(version / LIST_STRIDE);
}

/** The Version of a leader's next publication after `version` (see {@link LIST_STRIDE}). */
export function nextVersion(version: number, listChanged: boolean): number {
  return listChanged ? (listEpoch(version) + 1) * LIST_STRIDE : version + 1;
}

/** True when two member lists are the same, in the same order, with the same weights and priorities. */
export function sameMembers(a: readonly Member[], b: readonly Member[]): boolean {
  return a.length === b.length && a.every((m, i) => sameMember(m, b[i]!));
}
