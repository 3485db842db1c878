/** `rampflow worker`: the worker process, configured by the environment (see docs/reference/environment.md). */
import type { Command } from 'commander';
import { runWorkerProcess } from '../workers/process';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'run the rampflow worker (journeys, deposits, events) until SIGINT/SIGTERM; configured by TEMPORAL_* and RAMP_* variables',
    )
    .action(async () => {
      await runWorkerProcess();
    });
}
