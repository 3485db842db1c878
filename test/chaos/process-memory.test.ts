/**
 * The chaos run's memory-budget check reads the worker proper, not its launcher: a real launcher
 * process relaunches a child with `--max-old-space-size` (as `rampflow worker` does) that holds 96 MiB,
 * and the reading is the child's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryWithinBudget } from '../../chaos/invariants';
import { workerResidentMiB } from '../../chaos/process-memory';
import { until } from '../support/until';

const HELD_MIB = 96;
// The worker proper fills a buffer (so its pages are resident) and says so; the launcher only waits.
const WORKER = `globalThis.held = Buffer.alloc(${HELD_MIB} * 1024 * 1024, 1); console.log('holding'); setInterval(() => {}, 1000);`;
const LAUNCHER = `const c = require('node:child_process').spawn(process.execPath, ['--max-old-space-size=256', '-e', ${JSON.stringify(WORKER)}], { stdio: 'inherit' }); process.on('SIGTERM', () => { c.kill(); process.exit(0); });`;

let launcher: ChildProcess | undefined;
afterEach(() => {
  launcher?.kill('SIGTERM');
});

describe("a worker's resident memory, as the chaos run reads it", () => {
  it("is the relaunched worker's, not its launcher's", async () => {
    launcher = spawn(process.execPath, ['-e', LAUNCHER], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((held) =>
      launcher!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && held()),
    );
    const resident = await until('a reading', async () => workerResidentMiB(launcher!.pid!), 5_000);
    expect(resident).toBeGreaterThan(HELD_MIB);
  });

  it('breaks the budget row for a worker above it, and for a run where no worker could be read', () => {
    expect(memoryWithinBudget({ budgetMiB: 512, peaks: [{ worker: 1, peakMiB: 300 }] })).toEqual([]);
    expect(
      memoryWithinBudget({
        budgetMiB: 512,
        peaks: [
          { worker: 1, peakMiB: 300 },
          { worker: 2, peakMiB: 600.4 },
        ],
      }),
    ).toEqual(['worker 2 peaked at 600 MiB resident']);
    expect(memoryWithinBudget({ budgetMiB: 512, peaks: [] })).toHaveLength(1);
  });
});
