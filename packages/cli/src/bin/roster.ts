#!/usr/bin/env node
import { processIO } from '../commands/Command.js';
import { runCli } from '../runCli.js';

// Exit explicitly: a command that gave up (a second Ctrl-C) may leave sockets and timers behind.
process.exit(await runCli(process.argv.slice(2), processIO()));
