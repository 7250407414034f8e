#!/usr/bin/env node
// The installed `cluster-test` command: the compiled entry point (run `pnpm build` first).
import "../dist/bin/cluster-test.js";
