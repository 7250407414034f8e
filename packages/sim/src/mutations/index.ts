import { blindLeader } from './blindLeader.js';
import { lenientParser } from './lenientParser.js';
import { memorylessFollower } from './memorylessFollower.js';
import type { Mutation } from './Mutation.js';
import { leaveAnywhere } from './leaveAnywhere.js';
import { noSelfFencing } from './noSelfFencing.js';
import { partialWindow } from './partialWindow.js';
import { publishWithoutCas } from './publishWithoutCas.js';
import { retryStorm } from './retryStorm.js';
import { silentLapse } from './silentLapse.js';
import { undyingMembers } from './undyingMembers.js';

/** Every deliberately broken variant of the protocol, each rejected by the property it names. */
export const MUTATIONS: readonly Mutation[] = [
  undyingMembers,
  memorylessFollower,
  partialWindow,
  lenientParser,
  leaveAnywhere,
  noSelfFencing,
  blindLeader,
  publishWithoutCas,
  silentLapse,
  retryStorm,
];

/** The mutation called `name`; throws when there is none. */
export function mutationByName(name: string): Mutation {
  const m = MUTATIONS.find((x) => x.name === name);
  if (!m) throw new Error(`no mutation called ${JSON.stringify(name)}; try one of ${MUTATIONS.map((x) => x.name).join(', ')}`);
  return m;
}
