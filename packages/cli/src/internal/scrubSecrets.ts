import type { Env } from './flags.js';
import { STORE_PASSWORD_ENV, STORE_URL_ENV, urlPasswords } from './storeSource.js';

/** Secrets shorter than this are hidden only where they sit in a URL (`:pw@`): alone, a one-letter password would mangle every line. */
const MIN_LITERAL = 3;

/**
 * The last safety net for secrets in text the CLI prints: each known secret (the store's
 * passwords, from its URL or `ROSTER_STORE_PASSWORD`) is replaced by `***` wherever it appears,
 * raw, URL-encoded or JSON-escaped; one of fewer than 3 characters only as the password of a URL
 * (`:pw@`). It replaces those literal strings and nothing else, so it cannot rewrite any other
 * part of a message: the store URL itself is redacted before any text is built (its display form,
 * see `resolveStoreUrl`), and the library redacts the URLs in its own messages.
 */
export class SecretScrubber {
  readonly #literals: readonly string[];

  constructor(secrets: readonly string[] = []) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (secret === '') continue;
      const encodings = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
      for (const form of encodings) {
        forms.add(`:${form}@`);
        if (secret.length >= MIN_LITERAL) forms.add(form);
      }
    }
    // Longest first, so that a form containing another is replaced whole.
    this.#literals = [...forms].sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret replaced by `***` (in a URL, `:secret@` by `:***@`). */
  scrub(text: string): string {
    let out = text;
    for (const literal of this.#literals) {
      const hidden = literal.startsWith(':') && literal.endsWith('@') && literal.length > 2 ? ':***@' : '***';
      out = out.split(literal).join(hidden);
    }
    return out;
  }
}

/**
 * The secrets a command line can carry before any command has looked at it: the passwords of the
 * URLs among `args`, of `ROSTER_STORE_URL`, and `ROSTER_STORE_PASSWORD`. `runCli` hides them in an
 * error message, whatever produced it.
 */
export function knownSecrets(args: readonly string[], env: Env): string[] {
  const secrets = args.flatMap((arg) => urlPasswords(arg));
  const url = env[STORE_URL_ENV];
  if (url !== undefined) secrets.push(...urlPasswords(url));
  const password = env[STORE_PASSWORD_ENV];
  if (password !== undefined && password !== '') secrets.push(password);
  return secrets;
}
