// The worker's V8 heap follows its memory budget (WORKER_MEMORY_MB, workers/memory-budget.ts), and a
// heap limit can only be given when Node starts. So `rampflow worker` started without one runs the
// worker in a child Node with `--max-old-space-size` set, and stays beside it: signals are passed on,
// its exit is this process's, and the child ends at once if this process is killed outright (the
// IPC channel closes). The image starts the worker with the flag itself (bin/docker-entrypoint.sh),
// so there is one process there.
const { spawn } = require('node:child_process');

const HEAP_FLAG = '--max-old-space-size';

function hasHeapLimit() {
  return (
    process.execArgv.some((arg) => arg.startsWith(HEAP_FLAG)) || (process.env.NODE_OPTIONS ?? '').includes(HEAP_FLAG)
  );
}

/** In the relaunched child: end with the parent, never outlive it. */
function followParent() {
  if (process.env.RAMPFLOW_WORKER_RELAUNCHED !== '1' || !process.connected) return;
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  // The channel must not keep the worker alive once its work is done.
  process.channel?.unref();
}

/**
 * Relaunches `rampflow worker` with the heap limit its budget sets, unless it has one. Returns true
 * when it did (this process then only waits for the child).
 */
function relaunchWithHeapLimit(entry, args, heapFlag) {
  followParent();
  if (args[0] !== 'worker' || hasHeapLimit()) return false;
  const child = spawn(process.execPath, [heapFlag(), ...process.execArgv, entry, ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, RAMPFLOW_WORKER_RELAUNCHED: '1' },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
  return true;
}

module.exports = { relaunchWithHeapLimit };
