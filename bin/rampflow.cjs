#!/usr/bin/env node
// Entry point of the `rampflow` command: runs the TypeScript sources through tsx, so there is no build step.
require('tsx/cjs/api').register();
const { relaunchWithHeapLimit } = require('./worker-heap.cjs');
// `rampflow worker` runs with the heap limit WORKER_MEMORY_MB sets (bin/worker-heap.cjs).
const relaunched = relaunchWithHeapLimit(__filename, process.argv.slice(2), () =>
  require('../workers/memory-budget.ts').workerHeapFlag(process.env),
);
if (!relaunched) void require('../cli/main.ts').runCli(process.argv);
