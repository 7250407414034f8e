#!/usr/bin/env node
/** `pnpm demo`: `roster demo` with this process's arguments. */
import { processIO } from '../commands/Command.js';
import { runCli } from '../runCli.js';

process.exit(await runCli(['demo', ...process.argv.slice(2)], processIO()));
