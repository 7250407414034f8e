/**
 * The published markdown and its code blocks, for the tests that keep the docs from drifting from
 * the code (test/docs-identifiers.test.ts, test/docs-snippets.test.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The markdown files a reader meets, relative to the repository root: README.md, docs/*.md, and
 * the README.md of every package and every example.
 */
export function docFiles(root: string): string[] {
  const files = ['README.md'];
  for (const name of readdirSync(join(root, 'docs')).sort()) if (name.endsWith('.md')) files.push(`docs/${name}`);
  for (const parent of ['packages', 'examples']) {
    if (!existsSync(join(root, parent))) continue;
    for (const dir of readdirSync(join(root, parent)).sort()) {
      if (existsSync(join(root, parent, dir, 'README.md'))) files.push(`${parent}/${dir}/README.md`);
    }
  }
  return files;
}

/** One fenced code block of a markdown text. */
export interface FencedBlock {
  /** The info string's first word, lower-cased (`ts`, `sh`, `json`; `''` when none). */
  readonly lang: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  /** The lines between the fences, the fence's own indentation removed (a block inside a list item). */
  readonly code: string;
  /**
   * The HTML comment that ends on the last non-blank line before the opening fence, without
   * `<!--` and `-->`, trimmed; `undefined` when that line is not the end of a comment.
   */
  readonly comment: string | undefined;
  /** The line where that comment starts, 1-based. */
  readonly commentLine: number | undefined;
}

/**
 * Every fenced block (``` or ~~~, indented by up to 3 spaces or as a list item's content) of a
 * markdown text. An unclosed fence runs to the end of the text, as CommonMark reads it.
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const fence = open[2]!;
    const info = open[3] ?? '';
    let end = i + 1;
    while (end < lines.length) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[end]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      end++;
    }
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join('\n');
    // The comment just before the fence, blank lines allowed between.
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    let comment: string | undefined;
    let commentLine: number | undefined;
    if (before >= 0 && lines[before]!.trimEnd().endsWith('-->')) {
      let start = before;
      while (start >= 0 && !lines[start]!.includes('<!--')) start--;
      if (start >= 0) {
        const text = lines.slice(start, before + 1).join('\n');
        comment = text.slice(text.lastIndexOf('<!--') + 4, text.lastIndexOf('-->')).trim();
        commentLine = start + 1;
      }
    }
    blocks.push({ lang: info.toLowerCase(), line: i + 1, code, comment, commentLine });
    i = end;
  }
  return blocks;
}
