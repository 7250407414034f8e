/**
 * Cuts a stream of text chunks into lines (`\n`, with an optional `\r` before it). A line longer
 * than `maxLength` characters is not kept whole: it is reported once to `onOverflow` and skipped
 * up to its end, so a daemon gone wrong cannot grow the client's memory without bound.
 */
export class LineSplitter {
  #partial = '';
  #skipping = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (length: number) => void,
    private readonly maxLength = 1 << 20,
  ) {}

  /** Feeds the next chunk; calls `onLine` for each line it completes. */
  push(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, end);
      start = end + 1;
      if (this.#skipping) {
        this.#skipping = false;
        this.#partial = '';
        continue;
      }
      const line = this.#partial + piece;
      this.#partial = '';
      if (line.length > this.maxLength) {
        this.onOverflow(line.length);
        continue;
      }
      this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (this.#skipping || start === chunk.length) return;
    this.#partial += chunk.slice(start);
    if (this.#partial.length > this.maxLength) {
      this.onOverflow(this.#partial.length);
      this.#partial = '';
      this.#skipping = true;
    }
  }

  /** Forgets an unfinished line (the connection it came from is gone). */
  reset(): void {
    this.#partial = '';
    this.#skipping = false;
  }
}
