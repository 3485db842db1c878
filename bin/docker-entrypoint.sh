#!/bin/sh
# The image's entry point: `node dist/cli/main.js <command>`. The worker gets the V8 heap limit its
# memory budget sets (WORKER_MEMORY_MB, workers/memory-budget.ts), given when Node starts; exec, so
# the worker is the container's one process and receives its signals.
set -e
if [ "$1" = "worker" ]; then
  heap_flag=$(node -e 'process.stdout.write(require("./dist/workers/memory-budget.js").workerHeapFlag(process.env))')
  exec node "$heap_flag" dist/cli/main.js "$@"
fi
exec node dist/cli/main.js "$@"
