import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onSignalCleanup } from './processes.js';

/** A temp directory that is removed by `remove()`, or when the bench is stopped by a signal. */
export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
}

/** Creates `os.tmpdir()/<prefix>XXXXXX`. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  const removeNow = (): Promise<void> => rm(path, { recursive: true, force: true });
  const unregister = onSignalCleanup(removeNow);
  return {
    path,
    async remove() {
      unregister();
      await removeNow();
    },
  };
}
