import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docFiles } from './support/docs.js';

// Keeps the docs from drifting from the code: every inline-code span of README.md, docs/*.md,
// packages/*/README.md and examples/*/README.md that names a code identifier (`createNode()`,
// `node.leadership`, `LeaderRole.end`, `#stepDown`, `RosterKeys`) must name words that occur in the
// TypeScript sources. A rename in the code then fails here until the docs follow it. The code
// blocks of the same files are typechecked by test/docs-snippets.test.ts.

const root = fileURLToPath(new URL('..', import.meta.url));

/** The shape of an identifier: dotted segments, an optional `#` (private member) and `()`. */
const IDENTIFIER = /^[#A-Za-z_$][\w$]*(\.#?[A-Za-z_$][\w$]*)*(\(\))?$/;

/** Last segments that make a span a file name (`foo.ts`, `package.json`), not code. */
const FILE_EXTENSIONS = new Set(['ts', 'tsx', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json', 'md', 'svg', 'png', 'yaml', 'yml', 'toml', 'lua', 'sh', 'txt', 'log', 'html', 'css', 'lock', 'pem', 'crt', 'key', 'conf', 'service', 'env', 'gz', 'tgz', 'rdb', 'aof']);

/**
 * Names of other projects' APIs that the docs discuss, which Roster's sources never spell: ioredis
 * options Roster leaves at their defaults, libcluster's C API, Curator's recipe. Roster's own
 * identifiers never belong here: fix the doc instead.
 */
const EXTERNAL = new Set(['clusterNodeRetryStrategy', 'dnsLookup', 'slotsRefreshInterval', 'cluster_join', 'LeaderLatch']);

/** Every `.ts` file under `dir`, node_modules and dist excluded. */
function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !/(^|[\\/])(node_modules|dist)([\\/]|$)/.test(f))
    .map((f) => join(dir, f));
}

/** Every word (`[A-Za-z_$][\w$]*`) of the TypeScript sources and tests, the examples' included. */
function sourceWords(): Set<string> {
  const files = [...tsFiles(join(root, 'test'))];
  for (const parent of ['packages', 'examples']) {
    for (const pkg of readdirSync(join(root, parent))) {
      files.push(...tsFiles(join(root, parent, pkg, 'src')), ...tsFiles(join(root, parent, pkg, 'test')));
    }
  }
  const words = new Set<string>();
  for (const file of files) for (const w of readFileSync(file, 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(w);
  return words;
}

/** The inline-code spans of a markdown text, with their line numbers; fenced blocks are skipped. */
function inlineCode(markdown: string): { line: number; code: string }[] {
  const lines = markdown.split('\n');
  // Blank out fenced blocks, keeping the line count so that line numbers stay right.
  let fence: string | undefined;
  const prose = lines.map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return '';
    }
    return line;
  });
  // A code span does not cross a blank line: match within each paragraph.
  const spans: { line: number; code: string }[] = [];
  let start = 0;
  while (start < prose.length) {
    let end = start;
    while (end < prose.length && prose[end]!.trim() !== '') end++;
    const block = prose.slice(start, end).join('\n');
    for (const m of block.matchAll(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)) {
      const line = start + 1 + block.slice(0, m.index).split('\n').length - 1;
      // A span padded with one space on each side (`` `x` ``) holds the text between.
      const raw = m[2]!;
      spans.push({ line, code: raw.length > 2 && raw.startsWith(' ') && raw.endsWith(' ') ? raw.slice(1, -1) : raw });
    }
    start = end + 1;
  }
  return spans;
}

/**
 * The segments of `code` to look for in the sources, when it reads as a code identifier;
 * `undefined` for prose, flags, env vars, file names, key patterns and values.
 */
function identifierSegments(code: string): string[] | undefined {
  if (!IDENTIFIER.test(code)) return undefined;
  // An environment variable, `$VAR` or `UPPER_CASE`.
  if (/^\$?[A-Z][A-Z0-9_]*$/.test(code)) return undefined;
  const call = code.endsWith('()');
  const bare = call ? code.slice(0, -2) : code;
  const segments = bare.split('.');
  // A file name: `config.ts`, `package.json`.
  if (!call && segments.length > 1 && FILE_EXTENSIONS.has(segments.at(-1)!.toLowerCase())) return undefined;
  const looksLikeCode = call || segments.length > 1 || bare.includes('#') || /[A-Z]/.test(bare.slice(1));
  if (!looksLikeCode) return undefined;
  return segments.map((s) => s.replace(/^#/, ''));
}

describe('identifiers named in the docs', () => {
  it('reads a code span as an identifier only when it looks like code', () => {
    expect(identifierSegments('createNode()')).toEqual(['createNode']);
    expect(identifierSegments('node.leadership')).toEqual(['node', 'leadership']);
    expect(identifierSegments('LeaderRole.end')).toEqual(['LeaderRole', 'end']);
    expect(identifierSegments('#stepDown')).toEqual(['stepDown']);
    expect(identifierSegments('onLapse')).toEqual(['onLapse']);
    expect(identifierSegments('RosterKeys')).toEqual(['RosterKeys']);
    for (const notCode of ['leader', 'leader 0', '--json', 'ROSTER_SEED', '$HOME', 'keys.ts', 'docs/x.md', 'package.json', 'lease-expired', 'v20.20.2', 'PING', 'id:weight', '1.5I']) {
      expect(identifierSegments(notCode), notCode).toBeUndefined();
    }
    expect(inlineCode('a `x` b\n```ts\nconst `y` = 1;\n```\n`` a`b ``, `multi\nline` and `z`')).toEqual([
      { line: 1, code: 'x' },
      { line: 5, code: 'a`b' },
      { line: 5, code: 'multi\nline' },
      { line: 6, code: 'z' },
    ]);
  });

  it('names only words that occur in the TypeScript sources', () => {
    const words = sourceWords();
    expect(words.size).toBeGreaterThan(1000);
    const missing: string[] = [];
    let checked = 0;
    for (const file of docFiles(root)) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const { line, code } of inlineCode(text)) {
        const segments = identifierSegments(code);
        if (segments === undefined) continue;
        checked++;
        const absent = segments.filter((s) => !words.has(s) && !EXTERNAL.has(s));
        if (absent.length > 0) missing.push(`${relative(root, join(root, file))}:${line}: \`${code}\` (${absent.join(', ')} not in the sources)`);
      }
    }
    // A guard on the extraction itself: the docs name hundreds of identifiers.
    expect(checked).toBeGreaterThan(300);
    expect(missing, `identifiers named in the docs but found nowhere in packages/*/src, packages/*/test, examples/*/src, examples/*/test or test/:\n${missing.join('\n')}\n`).toEqual([]);
  });
});
