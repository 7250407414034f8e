import { MissingDriverError } from '../errors.js';

/**
 * Loads an optional driver package with `load` (a dynamic `import()` written at the call site, so
 * that bundlers see it), turning "not installed" into a {@link MissingDriverError} naming it.
 */
export async function loadDriver<T>(packageName: string, backend: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : '';
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${packageName}'`)) {
      throw new MissingDriverError(packageName, backend, { cause: error });
    }
    throw error;
  }
}
