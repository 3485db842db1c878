#!/usr/bin/env node
// Entry point of the `rampflow` command: runs the TypeScript sources through tsx, so there is no build step.
require('tsx/cjs/api').register();
void require('../cli/main.ts').runCli(process.argv);
