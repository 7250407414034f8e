import { helpItem, wrap, type FlagMap, type FlagTable, type HelpLayout } from './flags.js';
import { STORE_FORMS, STORE_KINDS } from './storeForms.js';
import { STORE_PASSWORD_ENV, STORE_URL_ENV } from './storeSource.js';

/**
 * The store section of a command's `--help`: its store flags (`keys`: the URL flag, then
 * `--store-file`) in their order of precedence with `ROSTER_STORE_URL` and `ROSTER_STORE_PASSWORD`,
 * then every store URL form ({@link storeFormsHelp}).
 */
export function storeHelp<F extends FlagMap>(table: FlagTable<F>, keys: readonly [url: keyof F, file: keyof F], layout: HelpLayout = {}): string {
  const [url, file] = keys;
  return [
    ...wrap(`The store, from the first of ${table.name(url)}, ${table.name(file)} and ${STORE_URL_ENV} that is given (so that it need not be on the command line):`, 98),
    table.helpLines(keys, layout),
    helpItem(STORE_PASSWORD_ENV, 'the password, for a store URL that has none (URL-encoded for you)', layout),
    '  Passwords are never printed: not in logs, errors, the status page or /status.json.',
    '',
    storeFormsHelp(),
  ].join('\n');
}

/** Every store URL form, one per item, for `--help`. */
export function storeFormsHelp(): string {
  const layout = { column: 28, width: 100 };
  return [`Store URLs (${STORE_KINDS}; docs/stores.md):`, ...STORE_FORMS.map((f) => helpItem(f.form, f.meaning, layout))].join('\n');
}
