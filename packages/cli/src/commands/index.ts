import type { Command } from './Command.js';
import { demoCommand } from './demo.js';
import { nodeCommand } from './node.js';
import { primaryCommand } from './primary.js';

/**
 * Every `roster` subcommand, in the order `roster --help` lists them. To add one, write
 * `src/commands/<name>.ts` exporting a {@link Command} and append it here.
 */
export const commands: readonly Command[] = [nodeCommand, demoCommand, primaryCommand];
