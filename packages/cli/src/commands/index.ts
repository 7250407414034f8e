import type { Command } from './Command.js';
import { nodeCommand } from './node.js';
import { primaryCommand } from './primary.js';
import { verifyCommand } from './verify.js';

/**
 * Every `roster` subcommand, in the order `roster --help` lists them. To add one, write
 * `src/commands/<name>.ts` exporting a {@link Command} and append it here. (The demo is not one:
 * it is the repository's private `@roster/demo`, `pnpm demo` from a clone.)
 */
export const commands: readonly Command[] = [nodeCommand, primaryCommand, verifyCommand];
