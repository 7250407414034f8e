import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { docFiles, fencedBlocks, type FencedBlock } from './support/docs.js';

// The code blocks of the docs are the documentation of the API as it is: every ```ts block of
// README.md, docs/*.md and each package's and example's README.md is written to a module of its own
// in a temp directory, and all of them are typechecked in one TypeScript program with the
// repository's compiler options (tsconfig.base.json), against the built packages: `@roster/*`
// resolves to packages/*, whose `exports` point at dist/ (so `pnpm build` first, as `pnpm test`
// does), and a third-party import (`prom-client`, `ioredis`) to the copy a workspace package
// depends on. The ```js blocks are checked too, in a second program, as a JavaScript user's editor
// checks them (checkJs, not strict: a JavaScript user writes no annotations): a misspelt option, a
// missing one, a renamed export still fail.
//
// Top-level await is fine (each block is an ES module). An HTML comment on the last non-blank line
// before the fence may say how to check the block:
//
//   <!-- snippet: skip (why: the block is a fragment, or needs what the workspace lacks) -->
//   <!-- snippet: prelude
//   declare const roster: ObservedRoster; // code the block takes as given, hidden from the reader
//   -->
//
// A skip must give its reason; any other `snippet:` comment, or one before a block that is not
// checked, fails the test.

const root = fileURLToPath(new URL('..', import.meta.url));

/** Info strings checked as TypeScript, and as JavaScript (checkJs). */
const TS_LANGS = new Set(['ts', 'typescript']);
const JS_LANGS = new Set(['js', 'javascript', 'mjs']);

type Marker = { kind: 'check'; prelude: string } | { kind: 'skip'; reason: string } | { kind: 'invalid'; problem: string };

/** What the comment before a block says about checking it. */
function parseMarker(comment: string | undefined): Marker {
  if (comment === undefined || !comment.startsWith('snippet:')) return { kind: 'check', prelude: '' };
  const body = comment.slice('snippet:'.length).trim();
  const skip = /^skip\b\s*(?:\(([\s\S]*)\))?\s*$/.exec(body);
  if (skip) {
    const reason = skip[1]?.trim() ?? '';
    return reason === '' ? { kind: 'invalid', problem: 'a skip must say why: `<!-- snippet: skip (reason) -->`' } : { kind: 'skip', reason };
  }
  const prelude = /^prelude\b([\s\S]*)$/.exec(body);
  if (prelude) return { kind: 'check', prelude: prelude[1]!.replace(/^[ \t]*\n/, '') };
  return { kind: 'invalid', problem: `unknown snippet marker "${body.split('\n')[0]}" (skip (reason) or prelude)` };
}

interface Snippet {
  readonly doc: string;
  readonly block: FencedBlock;
  readonly prelude: string;
  readonly js: boolean;
}

interface Survey {
  readonly checked: Snippet[];
  readonly skipped: { doc: string; line: number; reason: string }[];
  readonly problems: string[];
}

/** Every block of every doc file, sorted into checked and skipped, with marker problems. */
function survey(): Survey {
  const checked: Snippet[] = [];
  const skipped: Survey['skipped'] = [];
  const problems: string[] = [];
  for (const doc of docFiles(root)) {
    for (const block of fencedBlocks(readFileSync(join(root, doc), 'utf8'))) {
      const code = TS_LANGS.has(block.lang) || JS_LANGS.has(block.lang);
      const marker = parseMarker(block.comment);
      const marked = block.comment?.startsWith('snippet:') === true;
      if (!code) {
        if (marked) problems.push(`${doc}:${block.commentLine}: a snippet marker before a \`${block.lang || 'plain'}\` block, which is never checked`);
        continue;
      }
      if (marker.kind === 'invalid') problems.push(`${doc}:${block.commentLine}: ${marker.problem}`);
      else if (marker.kind === 'skip') skipped.push({ doc, line: block.line, reason: marker.reason });
      else checked.push({ doc, block, prelude: marker.prelude, js: JS_LANGS.has(block.lang) });
    }
  }
  return { checked, skipped, problems };
}

interface PackageJson {
  name?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const readJson = (file: string): PackageJson => JSON.parse(readFileSync(file, 'utf8')) as PackageJson;

/** The workspace's package directories: the root, packages/*, examples/*, test. */
function workspaceDirs(): string[] {
  const dirs = [root, join(root, 'test')];
  for (const parent of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, parent)).sort()) dirs.push(join(root, parent, name));
  }
  return dirs.filter((dir) => existsSync(join(dir, 'package.json')));
}

/** The type files a package's `exports` name (`types` conditions), relative to its directory. */
function exportedTypes(exports: unknown): string[] {
  if (typeof exports !== 'object' || exports === null) return [];
  return Object.entries(exports).flatMap(([key, value]) => (key === 'types' && typeof value === 'string' ? [value] : exportedTypes(value)));
}

/**
 * A node_modules for the snippets: each `@roster/*` package of packages/ linked to its directory,
 * and each third-party dependency of a workspace package linked to the copy pnpm installed for it.
 * Returns the `@roster/*` packages whose declared types are missing (not built).
 */
function linkModules(into: string): Map<string, string[]> {
  const linked = new Set<string>();
  const unbuilt = new Map<string, string[]>();
  const link = (name: string, target: string): void => {
    if (linked.has(name)) return;
    linked.add(name);
    const at = join(into, 'node_modules', name);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(target, at, 'dir');
  };
  const dirs = workspaceDirs();
  for (const dir of dirs) {
    const pkg = readJson(join(dir, 'package.json'));
    if (dir.startsWith(join(root, 'packages')) && pkg.name?.startsWith('@roster/')) {
      link(pkg.name, dir);
      const missing = exportedTypes(pkg.exports).filter((file) => !existsSync(join(dir, file)));
      if (missing.length > 0) unbuilt.set(pkg.name, missing);
    }
  }
  for (const dir of dirs) {
    const pkg = readJson(join(dir, 'package.json'));
    const names = [pkg.dependencies, pkg.devDependencies, pkg.peerDependencies, pkg.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {}));
    for (const name of names) {
      if (name.startsWith('@roster/') || name.startsWith('@types/')) continue;
      const installed = [join(dir, 'node_modules', name), join(root, 'node_modules', name)].find((path) => existsSync(path));
      if (installed) link(name, installed);
    }
  }
  return unbuilt;
}

/** The repository's compiler options, for a program that only checks. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(root, 'tsconfig.base.json'), (file) => ts.sys.readFile(file));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, root);
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return {
    ...options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')], // the workspace's @types/node
  };
}

/** The module written for a snippet: its prelude, its code, and `export {}` to make it a module. */
function moduleText(snippet: Snippet): { text: string; preludeLines: number } {
  const prelude = snippet.prelude === '' ? '' : `${snippet.prelude.replace(/\s+$/, '')}\n`;
  return { text: `${prelude}${snippet.block.code}\nexport {};\n`, preludeLines: prelude === '' ? 0 : prelude.split('\n').length - 1 };
}

let work: string | undefined;
afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('code blocks of the docs', () => {
  it('reads fenced blocks and the marker before each', () => {
    const markdown = [
      'text',
      '<!-- snippet: skip (a fragment) -->',
      '```ts',
      'x;',
      '```',
      '- item',
      '',
      '  ```ts',
      '  const a = 1;',
      '  ```',
      '<!-- snippet: prelude',
      'declare const b: number;',
      '-->',
      '',
      '````typescript title',
      '```',
      '````',
    ].join('\n');
    expect(fencedBlocks(markdown)).toEqual([
      { lang: 'ts', line: 3, code: 'x;', comment: 'snippet: skip (a fragment)', commentLine: 2 },
      { lang: 'ts', line: 8, code: 'const a = 1;', comment: undefined, commentLine: undefined },
      { lang: 'typescript', line: 15, code: '```', comment: 'snippet: prelude\ndeclare const b: number;', commentLine: 11 },
    ]);
    expect(parseMarker(undefined)).toEqual({ kind: 'check', prelude: '' });
    expect(parseMarker('a note for editors')).toEqual({ kind: 'check', prelude: '' });
    expect(parseMarker('snippet: skip (needs express)')).toEqual({ kind: 'skip', reason: 'needs express' });
    expect(parseMarker('snippet: prelude\ndeclare const b: number;')).toEqual({ kind: 'check', prelude: 'declare const b: number;' });
    expect(parseMarker('snippet: skip').kind).toBe('invalid');
    expect(parseMarker('snippet: skip ( )').kind).toBe('invalid');
    expect(parseMarker('snippet: skp (typo)').kind).toBe('invalid');
  });

  it('every TypeScript and JavaScript block typechecks against the built packages, or says why it cannot', () => {
    const { checked, skipped, problems } = survey();
    expect(problems, `snippet markers to fix:\n${problems.join('\n')}\n`).toEqual([]);
    // A guard on the extraction itself: the docs show the API in a few dozen blocks.
    expect(checked.length).toBeGreaterThan(20);

    work = mkdtempSync(join(tmpdir(), 'roster-doc-snippets-'));
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'roster-doc-snippets', private: true, type: 'module' }));
    const unbuilt = linkModules(work);
    const imported = new Set(checked.flatMap(({ block, prelude }) => [...`${prelude}\n${block.code}`.matchAll(/\bfrom\s+['"](@roster\/[^/'"]+)/g)].map((m) => m[1]!)));
    const notBuilt = [...unbuilt].filter(([name]) => imported.has(name));
    expect(notBuilt, `build the packages first (pnpm build); missing: ${notBuilt.map(([name, files]) => `${name}: ${files.join(', ')}`).join('; ')}`).toEqual([]);

    const files = new Map<string, { snippet: Snippet; preludeLines: number }>();
    checked.forEach((snippet, i) => {
      const name = `${String(i).padStart(3, '0')}-${snippet.doc.replace(/[^A-Za-z0-9]+/g, '-')}-L${snippet.block.line}.${snippet.js ? 'mjs' : 'ts'}`;
      const { text, preludeLines } = moduleText(snippet);
      const file = join(work!, name);
      writeFileSync(file, text);
      files.set(file, { snippet, preludeLines });
    });

    // Two programs, TypeScript and JavaScript, over one host that parses each declaration file once.
    const options = compilerOptions();
    const jsOptions: ts.CompilerOptions = { ...options, allowJs: true, checkJs: true, strict: false, noUncheckedIndexedAccess: false };
    const host = ts.createCompilerHost(options);
    const parsed = new Map<string, ts.SourceFile | undefined>();
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
      return parsed.get(fileName);
    };
    const roots = [...files.keys()];
    const diagnostics = [
      ...ts.getPreEmitDiagnostics(ts.createProgram({ rootNames: roots.filter((f) => f.endsWith('.ts')), options, host })),
      ...(roots.some((f) => f.endsWith('.mjs')) ? ts.getPreEmitDiagnostics(ts.createProgram({ rootNames: roots.filter((f) => f.endsWith('.mjs')), options: jsOptions, host })) : []),
    ];
    const errors = diagnostics.map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
      const source = diagnostic.file;
      const origin = source === undefined ? undefined : files.get(source.fileName);
      if (source === undefined || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
      const { line, character } = source.getLineAndCharacterOfPosition(diagnostic.start);
      if (origin === undefined) return `${relative(root, source.fileName)}:${line + 1}:${character + 1}: TS${diagnostic.code}: ${message}`;
      const { snippet, preludeLines } = origin;
      // Back to the markdown: a prelude line is in the marker comment, a code line in the block.
      const docLine = line < preludeLines ? snippet.block.commentLine! + 1 + line : snippet.block.line + 1 + (line - preludeLines);
      const where = line < preludeLines ? ' (in the snippet prelude)' : '';
      const text = source.text.split('\n')[line]?.trim() ?? '';
      return `${snippet.doc}:${docLine}:${character + 1}${where}: TS${diagnostic.code}: ${message}\n    ${text}`;
    });
    console.info(`docs snippets: ${checked.length} blocks typechecked (${checked.filter((s) => s.js).length} as JavaScript), ${skipped.length} skipped:\n${skipped.map((s) => `  ${s.doc}:${s.line}: ${s.reason}`).join('\n')}`);
    expect(errors, `code blocks of the docs that do not typecheck (fix the block, or mark it <!-- snippet: skip (why) -->):\n${errors.join('\n')}\n`).toEqual([]);
  });
});
