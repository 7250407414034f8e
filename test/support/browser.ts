/**
 * The system's Chromium for browser tests, driven by playwright-core (which downloads no browser).
 * Debian installs it as `chromium` (`apt-get install chromium`); `ROSTER_CHROMIUM` names another
 * executable. No browser is an error, never a reason to skip.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** The path of a Chromium executable: `ROSTER_CHROMIUM`, or the first of {@link NAMES} on the `PATH`. */
export function chromiumExecutable(): string {
  const explicit = process.env.ROSTER_CHROMIUM;
  if (explicit) return explicit;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of NAMES) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  throw new Error(`no Chromium found on the PATH (looked for ${NAMES.join(', ')}): install it (Debian: apt-get install chromium) or set ROSTER_CHROMIUM`);
}

/** Launches the system Chromium headless. Rejects (the test fails) when it cannot start. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumExecutable();
  // Chromium refuses its sandbox to root (CI containers); a test loading a local page needs none.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  try {
    return await chromium.launch({ executablePath, headless: true, args, timeout: 60_000 });
  } catch (error) {
    throw new Error(`cannot start Chromium at ${executablePath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
