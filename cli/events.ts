/**
 * `rampflow events list|replay`: the delivered webhooks operators have to look at (parked for good,
 * or still looking for their target) and re-running one once its cause is fixed. Connection from the
 * TEMPORAL_* environment, like the other operator commands.
 */
import type { Command } from 'commander';
import { positiveInteger, printJson, withRampflowClient } from './client-session';
import { formatEventList } from './state-format';

async function list(options: { all?: boolean; limit?: number; json?: boolean }): Promise<void> {
  const events = await withRampflowClient((rampflow) =>
    rampflow.listEvents({ ...(options.all ? { all: true } : {}), ...(options.limit ? { limit: options.limit } : {}) }),
  );
  if (options.json) printJson(events);
  else process.stdout.write(formatEventList(events));
}

async function replay(workflowId: string, options: { reason?: string }): Promise<void> {
  const { runId } = await withRampflowClient((rampflow) => rampflow.replayEvent(workflowId, options.reason));
  process.stdout.write(`${workflowId}: routing again from the start (run ${runId})\n`);
}

export function registerEventsCommand(program: Command): void {
  const events = program
    .command('events')
    .description(
      'delivered webhooks that were parked or are still looking for their target, and replaying one (connection from TEMPORAL_* variables)',
    );

  events
    .command('list')
    .description('parked (EVENT_UNROUTED, with the reason) and waiting (EVENT_WAITING) events, newest first')
    .option('--all', 'every event, routed ones included')
    .option('--limit <n>', 'at most this many (default 100)', positiveInteger)
    .option('--json', 'print the list as JSON')
    .action(list);

  events
    .command('replay')
    .description(
      'route a finished event again from the start (its workflow is reset to its first task), e.g. once the journey it was for exists',
    )
    .argument('<workflowId>', 'the event workflow, event/<EVENT>/<payload id>')
    .option('--reason <text>', 'why, kept in the workflow history', 'replayed by an operator')
    .action(replay);
}
