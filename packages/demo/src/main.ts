#!/usr/bin/env node
/**
 * `pnpm demo` (the root script runs this file after the build): the demo command with this
 * process's arguments, run by `@roster/cli`'s `runCli`, so that `--help`, the error lines and the
 * exit codes are the `roster` command line's.
 */
import { processIO, runCli } from '@roster/cli';
import { demoCommand } from './command.js';

process.exit(await runCli([demoCommand.name, ...process.argv.slice(2)], processIO(), { program: 'pnpm demo', commands: [demoCommand] }));
