/**
 * A password in a URL written in free text: `scheme://user:` then everything up to the last `@`
 * of the same token (no whitespace or quote: a JSON string ends at its quote), so that a raw
 * `@ / : ,` inside the password is hidden too.
 */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@,"']*):([^\s"']*)@/gi;

/** Secrets shorter than this are not masked as plain text (a one-letter password would mangle every line). */
const MIN_LITERAL = 3;

/**
 * Hides secrets in text the CLI prints: the password of every `scheme://user:pass@` in it, and
 * each known secret (the store password, from the URL or `ROSTER_STORE_PASSWORD`) wherever it
 * appears, raw, URL-encoded or JSON-escaped. A secret of fewer than 3 characters is hidden only
 * inside URLs.
 */
export class SecretScrubber {
  readonly #literals: readonly string[];

  constructor(secrets: readonly string[] = []) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (secret.length < MIN_LITERAL) continue;
      forms.add(secret);
      forms.add(encodeURIComponent(secret));
      forms.add(JSON.stringify(secret).slice(1, -1));
    }
    // Longest first, so that a form containing another is replaced whole.
    this.#literals = [...forms].sort((a, b) => b.length - a.length);
  }

  /** `text` with every password in a URL and every known secret replaced by `***`. */
  scrub(text: string): string {
    let out = text.replace(URL_PASSWORD, '$1:***@');
    for (const literal of this.#literals) out = out.split(literal).join('***');
    return out;
  }
}
