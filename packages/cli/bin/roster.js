#!/usr/bin/env node
// The installed `roster` command: the compiled entry point (run `pnpm build` first).
import "../dist/bin/roster.js";
