import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// One idea, one name (docs/glossary.md): the group, a node's id, the store and the two round trips
// have one name each in every option, flag, JSON field, metric and log field. Each former name
// below fails this test wherever it comes back: in the sources and tests of every package and
// example, in the cross-package tests, and in the docs. The glossary, which lists what each name
// replaces, and the changelogs are the only places that may spell them.

const root = fileURLToPath(new URL('..', import.meta.url));

/** A former name: what finds it, and the name to use instead. */
interface Former {
  readonly pattern: RegExp;
  readonly use: string;
  /** Files (relative, `/`-separated) where the text is another idea of the same spelling. */
  readonly elsewhere?: readonly RegExp[];
}

/** Former identifiers, each found as a whole word. */
function words(names: readonly string[], use: string): Former {
  return { pattern: new RegExp(`\\b(?:${names.join('|')})\\b`), use };
}

const FORMER: readonly Former[] = [
  // The group.
  { pattern: /\b(?:createNode|checkNodeOptions|resolveConfig)\(\{(?:[^}\n]*[{,])?\s*cluster\s*[:,}]/, use: 'createNode({ group })' },
  { pattern: /\bcreateCluster\(\{(?:[^}\n]*[{,])?\s*key\s*[:,}]/, use: 'createCluster({ group })' },
  { pattern: /\bsettings\.cluster\b/, use: 'settings.group' },
  { pattern: /(?<!libcluster's )\bcluster key\b/, use: 'the group' },
  {
    pattern: /(?<![\w-])--key(?![\w-])/,
    use: '--group',
    elsewhere: [
      /^packages\/bench\/src\/(drivers\/|systems\/peers\.ts)/, // the peers' drivers: the store key they campaign on
      /^test\/support\/tlsRedis\.ts$/, // redis-cli's --key: a TLS private key
    ],
  },
  { pattern: /Expected `cluster`/, use: 'Expected `group`' },
  // A node's id.
  words(['instanceId', 'uuid'], 'id'),
  words(['isValidNodeId', 'newNodeId', 'generateInstanceId', 'checkUuid'], 'isValidId, checkId, newId (@roster/follower)'),
  // The store.
  { pattern: /\b(?:createNode|checkNodeOptions|resolveConfig)\(\{ kv\b/, use: 'createNode({ store })' },
  { pattern: /\bcreateCluster\(\{(?:[^}\n]*[{,])?\s*registry\s*[:,}]/, use: 'createCluster({ store })' },
  { pattern: /(?<!libcluster's )registry URI|--registry\b/, use: 'store URL, --store' },
  { pattern: /--store[ =](?:KIND|auto|redis|cluster|memory)(?![\w:+])/, use: 'pnpm demo --store-kind' },
  // The store round trip.
  words(['roundTripMs', 'storeMs'], 'storeRoundTripMs'),
  // The PONG round trip.
  words(['pongIntervalMs', 'latencyMs', 'rttMs'], 'pongRoundTripMs'),
  words(['pingRoundTrip', 'memberLatencies'], 'pongRoundTrip(), memberPongRoundTrips()'),
  { pattern: /(?<!\w)latencies\(/, use: 'pongRoundTrips()' },
  words(['roster_ping_pong_round_trip_seconds', 'roster_member_ping_round_trip_seconds', 'roster_member_latency_omitted'], 'roster_pong_round_trip_seconds, roster_member_pong_round_trip_*'),
  { pattern: /PONG interval/, use: 'PONG round trip' },
];

/** Files that may name a former name: the list of them, and the history. */
const ALLOWED = [/^docs\/glossary\.md$/, /^test\/vocabulary\.test\.ts$/, /(^|\/)CHANGELOG\.md$/, /^\.changeset\//];

const TEXT = /\.(ts|mts|mjs|js|md)$/;

/** Every text file under `dir` (relative to the root), node_modules and dist excluded. */
function files(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .map((f) => f.split('\\').join('/'))
    .filter((f) => TEXT.test(f) && !/(^|\/)(node_modules|dist|\.vite)(\/|$)/.test(f))
    .map((f) => `${dir}/${f}`);
}

function checkedFiles(): string[] {
  const all = ['README.md', ...files('docs'), ...files('test')];
  for (const parent of ['packages', 'examples']) {
    for (const pkg of readdirSync(join(root, parent))) {
      all.push(...files(`${parent}/${pkg}/src`), ...files(`${parent}/${pkg}/test`));
      if (existsSync(join(root, parent, pkg, 'README.md'))) all.push(`${parent}/${pkg}/README.md`);
    }
  }
  return all.filter((f) => !ALLOWED.some((a) => a.test(f)));
}

describe('one vocabulary (docs/glossary.md)', () => {
  it('no former name of the group, a node id, the store or a round trip comes back', () => {
    const found: string[] = [];
    const checked = checkedFiles();
    expect(checked.length).toBeGreaterThan(300);
    for (const file of checked) {
      const lines = readFileSync(join(root, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const { pattern, use, elsewhere } of FORMER) {
          if (pattern.test(line) && !elsewhere?.some((e) => e.test(file))) found.push(`${file}:${i + 1}: ${pattern} (use ${use}): ${line.trim().slice(0, 120)}`);
        }
      });
    }
    expect(found, `former names (docs/glossary.md says what replaces each):\n${found.join('\n')}\n`).toEqual([]);
  });
});
