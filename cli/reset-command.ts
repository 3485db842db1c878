/**
 * `rampflow journey|deposit|payout reset <id>`: frees a workflow whose workflow tasks fail every time
 * (runbook RampflowWorkflowTaskFailures) by starting its current run again from its first workflow
 * task (client/workflow-reset.ts). One command shape for the three, so an operator meets one wording.
 */
import type { Command } from 'commander';
import type { StuckWorkflowReset } from '../client';
import { printJson } from './client-session';

interface ResetOptions {
  dryRun?: boolean;
  json?: boolean;
}

/** Adds `reset <argument>` to `parent`; `reset` does the work for the id given. */
export function addResetCommand(
  parent: Command,
  noun: string,
  argument: { name: string; description: string },
  reset: (id: string, options: { dryRun: boolean }) => Promise<StuckWorkflowReset>,
): void {
  parent
    .command('reset')
    .description(
      `free a ${noun} whose workflow tasks fail every time (a nondeterminism): its current run starts again ` +
        'from its first workflow task; refused while it is healthy or an activity of it is in flight',
    )
    .argument(`<${argument.name}>`, argument.description)
    .option('--dry-run', 'say what would be reset, and change nothing')
    .option('--json', 'print {workflowId, failedRunId, cause, resetToEventId, runId?} as JSON')
    .addHelpText(
      'after',
      '\nThe run does again what it did since it started (or last continued as new): every step reads the service\n' +
        'before it acts, and a fact it tells the partner again keeps its id, so the partner hears it once.\n' +
        `Example:\n  rampflow ${noun} reset <${argument.name}> --dry-run`,
    )
    .action(async (id: string, options: ResetOptions) => {
      const done = await reset(id, { dryRun: options.dryRun === true });
      if (options.json) return printJson(done);
      const what = `${noun} ${id}`;
      const failed = `its run ${done.failedRunId} fails its workflow task (${done.cause})`;
      const from = `after event ${done.resetToEventId} (its first workflow task)`;
      process.stdout.write(
        done.runId === undefined
          ? `dry run: would reset ${what}: ${failed}; a new run would start again ${from}; nothing was changed\n`
          : `${what} reset: ${failed}; new run ${done.runId} starts again ${from}, ` +
              'with the signals and updates it received since\n',
      );
    });
}
