/**
 * `@roster/follower`: the wire format of Roster's protocol, shared by every package that reads or
 * writes the store: the leader's broadcast (`Era Nonce Version Id member…`) and how two
 * leaderships rank, member ids, the values of an id key (`PING`, `PONG`, `LEAVE`), and the key
 * layout of a cluster. What a node does with them (following, standing, leading) is
 * `@roster/election`'s; most applications use `createNode()` from there.
 *
 * @packageDocumentation
 */
export {
  type Broadcast,
  type BroadcastHeader,
  type BroadcastParseResult,
  formatBroadcast,
  formatHeader,
  parseBroadcast,
  parseHeader,
  MAX_HEADER_BYTES,
  isGoodbye,
  isClaim,
  compareLeadership,
  sameLeadership,
  bestBroadcast,
  fencingToken,
} from './broadcast.js';
export { type Member, isValidId, checkId, checkWeight, formatMember, parseMember } from './ids.js';
export { type IdKeyValue, parseIdKeyValue, formatPing } from './idKey.js';
export { RosterKeys } from './keys.js';
