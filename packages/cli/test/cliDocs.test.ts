/**
 * docs/cli.md and `--help` come from the same tables: each command's options table, and the store
 * URL forms, sit in docs/cli.md between `<!-- NAME -->` and `<!-- /NAME -->` markers, and this test
 * fails when what is there is not what the tables give. (`<!-- flags:demo -->` is the demo's:
 * packages/demo/test/demoDocs.test.ts checks it.) To rewrite them after changing a flag:
 *
 *   ROSTER_UPDATE_DOCS=1 pnpm --filter @roster/cli exec vitest run test/cliDocs.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLUSTER_TEST_FLAGS } from '../src/commands/clusterTest.js';
import { NODE_FLAGS } from '../src/commands/node.js';
import { primaryFlagsMarkdown } from '../src/commands/primary.js';
import { VERIFY_FLAGS } from '../src/commands/verify.js';
import { STORE_KINDS, storeFormsMarkdown } from '../src/internal/storeForms.js';
import { tlsDocs } from '../src/internal/tlsOptions.js';

const DOC = new URL('../../../docs/cli.md', import.meta.url);

/** Each generated section of docs/cli.md, by marker name. */
const SECTIONS: Readonly<Record<string, () => string>> = {
  'flags:node': () => NODE_FLAGS.markdown(),
  'flags:primary': primaryFlagsMarkdown,
  'flags:cluster-test': () => CLUSTER_TEST_FLAGS.markdown(),
  'flags:verify': () => VERIFY_FLAGS.markdown(),
  'store-forms': storeFormsMarkdown,
  'tls-flags': tlsDocs,
};

/** The text between `<!-- name -->` and `<!-- /name -->`, or undefined when the markers are missing. */
function section(doc: string, name: string): { start: number; end: number } | undefined {
  const open = `<!-- ${name} -->\n`;
  const close = `\n<!-- /${name} -->`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close, start);
  if (start < 0 || end < 0) return undefined;
  return { start: start + open.length, end };
}

describe('docs/cli.md says what --help says', () => {
  let doc = readFileSync(DOC, 'utf8');
  if (process.env.ROSTER_UPDATE_DOCS === '1') {
    for (const [name, generate] of Object.entries(SECTIONS)) {
      const at = section(doc, name);
      if (at) doc = doc.slice(0, at.start) + generate() + doc.slice(at.end);
    }
    writeFileSync(DOC, doc);
  }

  for (const [name, generate] of Object.entries(SECTIONS)) {
    it(`<!-- ${name} --> is the table the code gives`, () => {
      const at = section(doc, name);
      expect(at, `docs/cli.md lacks the markers <!-- ${name} --> … <!-- /${name} -->`).toBeDefined();
      expect(doc.slice(at!.start, at!.end), 'run ROSTER_UPDATE_DOCS=1 pnpm --filter @roster/cli exec vitest run test/cliDocs.test.ts').toBe(generate());
    });
  }

  it('opens with every kind of store, not Redis alone', () => {
    const opening = doc.slice(0, doc.indexOf('\n## '));
    expect(opening).toContain(STORE_KINDS);
    expect(doc).not.toMatch(/against a Redis store|over Redis\b/);
  });
});
