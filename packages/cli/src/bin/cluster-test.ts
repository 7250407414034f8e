#!/usr/bin/env node
import { processIO } from '../commands/Command.js';
import { runClusterTest } from '../commands/clusterTest.js';

// Exit explicitly: a leave cut short by a second signal may leave sockets and timers behind.
process.exit(await runClusterTest(process.argv.slice(2), processIO()));
