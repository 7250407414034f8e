import { CliError } from '../CliError.js';
import { parseOptions } from './parseOptions.js';

/**
 * Every command's flags, declared once. A command lists its flags in a {@link FlagTable}
 * ({@link defineFlags}); the table gives the `node:util` `parseArgs` specs, the options lines of
 * `--help`, the options table of docs/cli.md, and the typed, validated values with where each came
 * from. A flag is renamed by changing its `name` alone: the command reads its value by key, and
 * every message, help line and doc row names it through the table.
 *
 * @example
 * ```ts
 * const FLAGS = defineFlags('roster node', {
 *   intervalMs: flag.integer('interval', { placeholder: 'MS', unit: 'milliseconds', help: 'the period I', defaultValue: 1000 }),
 *   json: flag.boolean('json', { help: 'one JSON object per line' }),
 * });
 * const { values } = FLAGS.parse(['--interval', '500'], {});
 * values.intervalMs; // 500 (a number)
 * FLAGS.parse(['--interval', '0'], {}); // CliError: roster node: --interval must be an integer ≥ 1 (milliseconds), got "0"
 * ```
 */

/** The environment a command reads (`process.env` or a test's object). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Where a flag's value came from. */
export type ValueSource =
  /** The command line; `name` as the user typed it in the usual form (`--timeout`, `-r`). */
  | { readonly kind: 'flag'; readonly name: string }
  /** The flag's environment variable (`ROSTER_TLS_CA`). */
  | { readonly kind: 'env'; readonly name: string }
  /** Neither: the flag's default (possibly derived from other flags), or nothing. */
  | { readonly kind: 'default' };

/** What a flag's reader gets besides the raw text. */
export interface ReadContext {
  /** The name the value came under, for messages: the flag (`--timeout`) or its variable (`ROSTER_TLS_CA`). */
  readonly label: string;
  /** Throws the {@link CliError} `<command>: <what>`. */
  fail(what: string): never;
}

/** One flag: how it is parsed, documented and checked. Built with {@link flag}. */
export interface Flag<V> {
  /** The long name without dashes (`renew-deadline`); `--NAME` on the command line. */
  readonly name: string;
  /** A one-letter alias (`r` for `-r`). */
  readonly short?: string;
  /** Shown and named as `-X` rather than `--NAME` (libcluster's `cluster-test` style). */
  readonly preferShort: boolean;
  /** What the value is called in help and docs (`MS`, `URL`); none for a boolean flag. */
  readonly placeholder?: string;
  /** What the flag does, for `--help` and docs/cli.md: one phrase, no Markdown. */
  readonly help: string;
  /** Added to the meaning in docs/cli.md only (Markdown: a link, a longer note). */
  readonly docs?: string;
  /** The environment variable that gives the value when the flag is absent. */
  readonly env?: string;
  /** The default as people read it (`1000`, `5 × --interval`, `a fresh UUID`). */
  readonly defaultText?: string;
  /** True when the command cannot run without it. */
  readonly required: boolean;
  /** The library options this flag sets (`renewDeadlineMs`), so that a `ConfigError` names the flag. */
  readonly fields: readonly string[];
  /** `parseArgs`'s type: a boolean flag takes no value. */
  readonly type: 'string' | 'boolean';
  /** The value from the raw text (`undefined`: not given); throws through `context.fail`. */
  read(raw: string | boolean | undefined, context: ReadContext): V;
}

/** The type of the value a flag gives. */
export type FlagValue<F> = F extends Flag<infer V> ? V : never;

/** A command's flags by key: the key is how the command reads the value, the flag's name how the user gives it. */
export type FlagMap = Readonly<Record<string, Flag<unknown>>>;

/** The values of a {@link FlagMap}, typed. */
export type FlagValues<F extends FlagMap> = { readonly [K in keyof F]: FlagValue<F[K]> };

/** What every flag factory takes. */
export interface FlagOptions {
  /** What the flag does: one phrase for `--help` and docs/cli.md. */
  readonly help: string;
  /** Extra Markdown for docs/cli.md. */
  readonly docs?: string;
  /** A one-letter alias. */
  readonly short?: string;
  /** Name the flag `-X` in help and messages. @defaultValue false */
  readonly preferShort?: boolean;
  /** The library options it sets. @defaultValue the flag's key in its table */
  readonly fields?: readonly string[];
}

/** What a flag with a value takes besides {@link FlagOptions}. */
export interface ValueFlagOptions extends FlagOptions {
  /** What the value is called (`MS`, `URL`, `FILE`). */
  readonly placeholder: string;
  /** The environment variable used when the flag is absent. */
  readonly env?: string;
  /** The default as people read it; for a flag with a `defaultValue`, that value unless given. */
  readonly defaultText?: string;
}

/** Bounds of an integer flag. */
export interface IntegerConstraints {
  /** The smallest value accepted. @defaultValue 1 */
  readonly min?: number;
  /** The largest value accepted. @defaultValue Number.MAX_SAFE_INTEGER */
  readonly max?: number;
  /** What the number counts, for messages: `milliseconds`, `seconds`. */
  readonly unit?: string;
}

type Reader<V> = (raw: string | undefined, context: ReadContext) => V;

function make<V>(name: string, options: FlagOptions & Partial<ValueFlagOptions>, extra: { required?: boolean; defaultText?: string }, read: Reader<V>): Flag<V> {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new TypeError(`flag name ${JSON.stringify(name)}: expected lower-case words joined by -`);
  const defaultText = options.defaultText ?? extra.defaultText;
  return {
    name,
    ...(options.short !== undefined && { short: options.short }),
    preferShort: options.preferShort ?? false,
    ...(options.placeholder !== undefined && { placeholder: options.placeholder }),
    help: options.help,
    ...(options.docs !== undefined && { docs: options.docs }),
    ...(options.env !== undefined && { env: options.env }),
    ...(defaultText !== undefined && { defaultText }),
    required: extra.required ?? false,
    fields: options.fields ?? [],
    type: options.placeholder === undefined ? 'boolean' : 'string',
    // parseArgs gives `true` for a boolean flag that is present: its reader sees ''.
    read: (raw, context) => read(raw === true ? '' : raw === false ? undefined : raw, context),
  };
}

function stringFlag(name: string, options: ValueFlagOptions & { readonly required: { readonly example: string } }): Flag<string>;
function stringFlag(name: string, options: ValueFlagOptions): Flag<string | undefined>;
function stringFlag(name: string, options: ValueFlagOptions & { readonly required?: { readonly example: string } }): Flag<string | undefined> {
  const example = options.required?.example;
  return make(name, options, { required: example !== undefined }, (raw, { label, fail }) => {
    if (example !== undefined && (raw === undefined || raw.trim() === '')) fail(`missing ${label} (e.g. ${label} ${example})`);
    return raw;
  });
}

function integerFlag(name: string, options: ValueFlagOptions & IntegerConstraints & { readonly defaultValue: number }): Flag<number>;
function integerFlag(name: string, options: ValueFlagOptions & IntegerConstraints): Flag<number | undefined>;
function integerFlag(name: string, options: ValueFlagOptions & IntegerConstraints & { readonly defaultValue?: number }): Flag<number | undefined> {
  const { min = 1, max = Number.MAX_SAFE_INTEGER, unit, defaultValue } = options;
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  return make(name, options, { ...(defaultValue !== undefined && { defaultText: String(defaultValue) }) }, (raw, { label, fail }) => {
    if (raw === undefined) return defaultValue;
    const value = /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) fail(`${label} must be ${range}${unit ? ` (${unit})` : ''}, got ${JSON.stringify(raw)}`);
    return value;
  });
}

function decimalFlag(name: string, options: ValueFlagOptions & { readonly unit: string; readonly defaultValue: number }): Flag<number>;
function decimalFlag(name: string, options: ValueFlagOptions & { readonly unit: string }): Flag<number | undefined>;
function decimalFlag(name: string, options: ValueFlagOptions & { readonly unit: string; readonly defaultValue?: number }): Flag<number | undefined> {
  const { unit, defaultValue } = options;
  return make(name, options, { ...(defaultValue !== undefined && { defaultText: String(defaultValue) }) }, (raw, { label, fail }) => {
    if (raw === undefined) return defaultValue;
    const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isFinite(value)) fail(`${label} must be a number ≥ 0 (${unit}), got ${JSON.stringify(raw)}`);
    return value;
  });
}

function choiceFlag<const C extends readonly string[]>(name: string, options: ValueFlagOptions & { readonly choices: C; readonly defaultValue: C[number] }): Flag<C[number]>;
function choiceFlag<const C extends readonly string[]>(name: string, options: ValueFlagOptions & { readonly choices: C }): Flag<C[number] | undefined>;
function choiceFlag(name: string, options: ValueFlagOptions & { readonly choices: readonly string[]; readonly defaultValue?: string }): Flag<string | undefined> {
  const { choices, defaultValue } = options;
  const expected = choices.length === 1 ? choices[0]! : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)!}`;
  return make(name, options, { ...(defaultValue !== undefined && { defaultText: defaultValue }) }, (raw, { label, fail }) => {
    if (raw === undefined) return defaultValue;
    if (!choices.includes(raw)) fail(`${label} must be ${expected}, got ${JSON.stringify(raw)}`);
    return raw;
  });
}

/** A flag of its own syntax: `parse` returns the value, or `undefined` for text it refuses. */
function customFlag<T>(
  name: string,
  options: ValueFlagOptions & { readonly expected: string; readonly parse: (raw: string) => T | undefined; readonly defaultValue: T },
): Flag<T> {
  return make(name, options, {}, (raw, { label, fail }) => {
    if (raw === undefined) return options.defaultValue;
    const value = options.parse(raw);
    if (value === undefined) return fail(`${label} must be ${options.expected}, got ${JSON.stringify(raw)}`);
    return value;
  });
}

function booleanFlag(name: string, options: FlagOptions): Flag<boolean> {
  return make(name, options, {}, (raw) => raw !== undefined);
}

/**
 * The flag factories. Each takes the flag's long name and its options, and gives a {@link Flag}
 * whose value type says whether it can be absent (`required` or a `defaultValue` make it present).
 */
export const flag = {
  /** Free text; `required: { example }` makes it required (`missing --group (e.g. --group billing)`). */
  string: stringFlag,
  /** A whole number within `min`..`max`. */
  integer: integerFlag,
  /** A non-negative decimal number (`--kill-every 2.5`). */
  decimal: decimalFlag,
  /** One of `choices`. */
  choice: choiceFlag,
  /** A value of its own syntax (`--web-port PORT|off`). */
  custom: customFlag,
  /** On when given, off otherwise; takes no value. */
  boolean: booleanFlag,
} as const;

/** The `-h, --help` flag every command takes (`runCli` answers it before any parsing). */
export function helpFlag(options: { readonly preferShort?: boolean } = {}): Flag<boolean> {
  return flag.boolean('help', { short: 'h', help: options.preferShort ? 'Print this message and exit' : 'show this help', ...options });
}

/** The `parseArgs` specs of a table. */
export type ParseArgsSpecs = Readonly<Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>>;

/** What {@link FlagTable.parse} found. */
export interface ParsedFlags<F extends FlagMap> {
  /** Every flag's value, typed: given, from its variable, or its default. */
  readonly values: FlagValues<F>;
  /** Where the value of `key` came from. */
  source(key: keyof F): ValueSource;
  /** True when the user gave `key` (on the command line or through its variable). */
  given(key: keyof F): boolean;
  /** The name `key`'s value came under: its flag, its variable when it came from there. */
  label(key: keyof F): string;
  /** The flag of `key` as the user writes it (see {@link FlagTable.name}). */
  name(key: keyof F): string;
  /** The key of the flag that sets the library option `field` (see {@link FlagTable.keyOfField}). */
  keyOfField(field: string): (keyof F & string) | undefined;
  /** The command, for messages (`roster node`). */
  readonly command: string;
}

/** Options of the help lines. */
export interface HelpLayout {
  /** Where the help text starts. @defaultValue 24 */
  readonly column?: number;
  /** The line width the text is wrapped to. @defaultValue 100 */
  readonly width?: number;
}

/** A command's flags: see {@link defineFlags}. */
export class FlagTable<F extends FlagMap> {
  /** The command in messages (`roster node`). */
  readonly command: string;
  /** The flags by key, in the order help and docs list them. */
  readonly flags: F;
  /** The `node:util` `parseArgs` option specs. */
  readonly parseArgsOptions: ParseArgsSpecs;

  constructor(command: string, flags: F) {
    this.command = command;
    this.flags = flags;
    const specs: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
    const shorts = new Set<string>();
    for (const f of Object.values(flags)) {
      if (specs[f.name] !== undefined) throw new TypeError(`${command}: flag --${f.name} declared twice`);
      if (f.short !== undefined && shorts.has(f.short)) throw new TypeError(`${command}: flag -${f.short} declared twice`);
      if (f.short !== undefined) shorts.add(f.short);
      specs[f.name] = { type: f.type, ...(f.short !== undefined && { short: f.short }) };
    }
    this.parseArgsOptions = specs;
  }

  /** The keys, in order. */
  get keys(): (keyof F & string)[] {
    return Object.keys(this.flags);
  }

  /** The flag of `key` as the user writes it: `--timeout`, or `-r` for a flag shown short. */
  name(key: keyof F): string {
    return flagName(this.flags[key]!);
  }

  /** The flag of `key` with its placeholder: `--timeout MS`. */
  syntax(key: keyof F): string {
    const f = this.flags[key]!;
    return f.placeholder === undefined ? flagName(f) : `${flagName(f)} ${f.placeholder}`;
  }

  /** The key of the flag that sets the library option `field` (see {@link Flag.fields}). */
  keyOfField(field: string): (keyof F & string) | undefined {
    return this.keys.find((key) => key === field || this.flags[key]!.fields.includes(field));
  }

  /**
   * Parses `args` (strict: no unknown flag, no positional argument), takes each absent flag's
   * value from its environment variable (an empty one counts as absent), and validates every
   * value.
   *
   * @throws {@link CliError} `<command>: <what>` naming the flag (or the variable) and the bad value.
   */
  parse(args: readonly string[], env: Env): ParsedFlags<F> {
    const { values: raw } = parseOptions(this.command, args, this.parseArgsOptions);
    const values: Record<string, unknown> = {};
    const sources: Record<string, ValueSource> = {};
    for (const key of this.keys) {
      const f = this.flags[key]!;
      let text = (raw as Record<string, string | boolean | undefined>)[f.name];
      let source: ValueSource = text === undefined ? { kind: 'default' } : { kind: 'flag', name: flagName(f) };
      const fromEnv = f.env === undefined ? undefined : env[f.env];
      if (text === undefined && f.env !== undefined && fromEnv !== undefined && fromEnv !== '') {
        text = fromEnv;
        source = { kind: 'env', name: f.env };
      }
      const label = source.kind === 'default' ? flagName(f) : source.name;
      values[key] = f.read(text, { label, fail: (what) => failWith(this.command, what) });
      sources[key] = source;
    }
    return {
      values: values as FlagValues<F>,
      source: (key) => sources[key as string]!,
      given: (key) => sources[key as string]!.kind !== 'default',
      label: (key) => {
        const source = sources[key as string]!;
        return source.kind === 'default' ? this.name(key) : source.name;
      },
      name: (key) => this.name(key),
      keyOfField: (field) => this.keyOfField(field),
      command: this.command,
    };
  }

  /**
   * The `--help` lines of the flags `keys` (every flag by default): the flag and its placeholder,
   * then what it does, its default and its variable, wrapped.
   *
   * @example
   * ```
   *   --timeout MS          the failure timeout T in milliseconds, more than twice the interval
   *                         [default: 5 × --interval]
   * ```
   */
  helpLines(keys: readonly (keyof F)[] = this.keys, layout: HelpLayout = {}): string {
    return keys.map((key) => helpLine(this.flags[key]!, layout)).join('\n');
  }

  /** The options table of docs/cli.md (see {@link flagsMarkdown}). */
  markdown(): string {
    return flagsMarkdown([{ table: this }]);
  }
}

/**
 * Declares a command's flags: `command` names it in messages (`roster node`), `flags` maps the key
 * the command reads each value by to its {@link Flag}, in the order `--help` and docs/cli.md list
 * them.
 *
 * @throws TypeError when two flags share a name or a short alias (a mistake in the table).
 */
export function defineFlags<const F extends FlagMap>(command: string, flags: F): FlagTable<F> {
  return new FlagTable(command, flags);
}

function flagName(f: Flag<unknown>): string {
  return f.preferShort && f.short !== undefined ? `-${f.short}` : `--${f.name}`;
}

/** `-h, --help`, `--timeout MS`, `-r URI`. */
function helpSyntax(f: Flag<unknown>): string {
  const name = f.short !== undefined && !f.preferShort ? `-${f.short}, --${f.name}` : flagName(f);
  return f.placeholder === undefined ? name : `${name} ${f.placeholder}`;
}

function helpLine(f: Flag<unknown>, { column = 24, width = 100 }: HelpLayout): string {
  // A bracketed note is never broken across lines.
  const note = (text: string): string => `[${text.replaceAll(' ', NBSP)}]`;
  const text = [f.help, f.defaultText !== undefined ? note(`default: ${f.defaultText}`) : '', f.env ? note(`env: ${f.env}`) : '']
    .filter(Boolean)
    .join(' ');
  return helpItem(helpSyntax(f), text, { column, width });
}

const NBSP = '\u00a0';

/**
 * `left` in the first column and `text` wrapped beside it (`--flag MS  what it does`); on a line of
 * its own when `left` is wider than the column. Used for every item of `--help`.
 */
export function helpItem(left: string, text: string, { column = 24, width = 100 }: HelpLayout = {}): string {
  const head = `  ${left}`;
  const lines = wrap(text, width - column).map((l) => l.replaceAll(NBSP, ' '));
  const pad = ' '.repeat(column);
  if (head.length >= column) return [head, ...lines.map((l) => pad + l)].join('\n');
  return lines.map((l, i) => (i === 0 ? head.padEnd(column) : pad) + l).join('\n');
}

/** `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone; a no-break space holds). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/[ \t\n]+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.length === 0 ? [''] : lines;
}

/** One source of rows for {@link flagsMarkdown}: a table, and the label of the subcommand it parses. */
export interface MarkdownSource {
  readonly table: { readonly keys: readonly string[]; readonly flags: FlagMap };
  /** The subcommand (`run`), when several tables share a doc table. */
  readonly label?: string;
}

/**
 * The Markdown options table of docs/cli.md for one or more tables: `| option | meaning | default |
 * environment |`, one row per flag (`--help` left out). Given several tables (the subcommands of
 * `roster primary`), a flag they share is one row, and one that only some take starts its meaning
 * with those subcommands (`` `run`: ``).
 */
export function flagsMarkdown(sources: readonly MarkdownSource[]): string {
  const rows: { flag: Flag<unknown>; labels: string[] }[] = [];
  for (const { table, label } of sources) {
    for (const key of table.keys) {
      const f = table.flags[key]!;
      if (f.name === 'help') continue;
      const row = rows.find((r) => r.flag === f);
      if (row) {
        if (label !== undefined) row.labels.push(label);
      } else rows.push({ flag: f, labels: label === undefined ? [] : [label] });
    }
  }
  const all = sources.length;
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const lines = ['| option | meaning | default | environment |', '|---|---|---|---|'];
  for (const { flag: f, labels } of rows) {
    const only = labels.length > 0 && labels.length < all ? `${labels.map((l) => `\`${l}\``).join(', ')}: ` : '';
    const meaning = `${only}${f.help}${f.docs ? ` ${f.docs}` : ''}`;
    const syntax = helpSyntax(f);
    const byDefault = f.required ? 'required' : (f.defaultText ?? '');
    lines.push(`| \`${cell(syntax)}\` | ${cell(meaning)} | ${cell(byDefault)} | ${f.env === undefined ? '' : `\`${f.env}\``} |`);
  }
  return lines.join('\n');
}

function failWith(command: string, what: string): never {
  throw new CliError(`${command}: ${what}`);
}
