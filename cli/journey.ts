/**
 * `rampflow journey start|status|list|retry|cancel|close|reset`: the partner's and the operator's view of
 * customer journeys, through the client library, connected by the TEMPORAL_* environment.
 */
import { Command, Option } from 'commander';
import {
  JOURNEY_STAGES,
  type CorrectedInput,
  type JourneyBulkFilter,
  type JourneyRequest,
  type JourneyStage,
} from '../client';
import { RampStage } from '../observability/search-attributes';
import { addBulkOptions, BULK_EXAMPLES, isBulk, runBulkCommand, type BulkFlags } from './bulk';
import { positiveInteger, printJson, printStatus, readJsonOption, withRampflowClient } from './client-session';
import { addResetCommand } from './reset-command';
import { readDeadline, withParkedReasons } from './parked-reasons';
import { formatJourneyList, formatJourneyState } from './state-format';

interface StartOptions {
  input?: string;
  externalId?: string;
  name?: string;
  email?: string;
  json?: boolean;
}

/** The request from `--input` with the customer flags laid over it (the flags win). */
function startRequest(options: StartOptions): JourneyRequest {
  const base = options.input === undefined ? {} : readJsonOption('--input', options.input);
  if (typeof base !== 'object' || base === null || Array.isArray(base))
    throw new Error('--input must be a JSON object');
  const given = base as { customer?: unknown };
  const customer = typeof given.customer === 'object' && given.customer !== null ? given.customer : {};
  const flags = {
    ...(options.externalId !== undefined ? { externalId: options.externalId } : {}),
    ...(options.name !== undefined ? { realName: options.name } : {}),
    ...(options.email !== undefined ? { email: options.email } : {}),
  };
  // The library validates the whole request and names any bad field.
  return { ...given, customer: { ...customer, ...flags } } as JourneyRequest;
}

async function start(options: StartOptions): Promise<void> {
  const request = startRequest(options);
  await withRampflowClient(async (rampflow) => {
    const handle = await rampflow.startJourney(request);
    // describe() needs no worker, and shows an ended journey (returned as it is) for what it is.
    const described = await handle.describe();
    const result = {
      externalId: request.customer.externalId,
      workflowId: handle.workflowId,
      runId: described.runId,
      status: described.status.name,
      stage: described.typedSearchAttributes.get(RampStage),
    };
    if (options.json) printJson(result);
    else
      process.stdout.write(
        `journey ${result.externalId}: workflow ${result.workflowId}, ${result.status}, stage ${result.stage ?? '-'}\n`,
      );
  });
}

async function status(externalId: string, options: { json?: boolean }): Promise<void> {
  await printStatus(
    { key: 'externalId', value: externalId },
    options,
    (rampflow) => rampflow.getJourney(externalId),
    formatJourneyState,
  );
}

async function list(options: { stage?: JourneyStage; limit?: number; json?: boolean }): Promise<void> {
  const journeys = await withRampflowClient(async (rampflow) => {
    const listed = await rampflow.listJourneys({
      ...(options.stage ? { stage: options.stage } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    });
    return withParkedReasons(
      listed,
      async (journey) => (await rampflow.getJourney(journey.externalId)).attention,
      readDeadline(rampflow),
    );
  });
  if (options.json) printJson(journeys);
  else process.stdout.write(formatJourneyList(journeys));
}

type JourneyBulkFlags = BulkFlags & { stage?: JourneyStage };

function bulkFilter(flags: JourneyBulkFlags): JourneyBulkFilter {
  return { ...(flags.stage ? { stage: flags.stage } : {}), ...(flags.errorType ? { errorType: flags.errorType } : {}) };
}

async function retry(externalId: string | undefined, options: JourneyBulkFlags & { input?: string }): Promise<void> {
  if (isBulk(externalId, options, 'externalId')) {
    // One correction cannot fit every journey: corrected input is for one journey at a time.
    if (options.input !== undefined) throw new Error('--input applies to one journey, not to --all');
    return withRampflowClient((rampflow) =>
      runBulkCommand({ verb: 'retry', noun: 'journey' }, options, (bulk) =>
        rampflow.retryAllJourneys(bulkFilter(options), bulk),
      ),
    );
  }
  // The library validates the corrected input and names any bad field.
  const corrected =
    options.input === undefined ? undefined : (readJsonOption('--input', options.input) as CorrectedInput);
  const { resumed } = await withRampflowClient((rampflow) => rampflow.retry(externalId!, corrected));
  process.stdout.write(`journey ${externalId} resumed at ${resumed}\n`);
}

async function cancel(externalId: string | undefined, options: JourneyBulkFlags & { reason?: string }): Promise<void> {
  if (isBulk(externalId, options, 'externalId')) {
    const reason = options.reason === undefined ? {} : { reason: options.reason };
    return withRampflowClient((rampflow) =>
      runBulkCommand({ verb: 'cancel', noun: 'journey' }, options, (bulk) =>
        rampflow.cancelAllJourneys(bulkFilter(options), { ...bulk, ...reason }),
      ),
    );
  }
  await withRampflowClient((rampflow) => rampflow.cancel(externalId!, options.reason));
  process.stdout.write(`journey ${externalId} cancelled\n`);
}

async function close(externalId: string, options: { reason?: string }): Promise<void> {
  await withRampflowClient((rampflow) => rampflow.closeCustomer(externalId, options.reason));
  process.stdout.write(`journey ${externalId} closed\n`);
}

export function registerJourneyCommand(program: Command): void {
  const journey = program
    .command('journey')
    .description(
      'start, inspect, list, retry, cancel and close customer journeys, and reset a stuck one (connection from TEMPORAL_* variables)',
    );

  journey
    .command('start')
    .description(
      'start the customer journey for a partner user, or show the one that already exists for that externalId',
    )
    .option(
      '--input <json|@file>',
      'the journey request as JSON, inline or from a file: {customer, onramp?, offramp?, timings?}',
    )
    .option('--external-id <id>', "customer.externalId: the partner's own user id")
    .option('--name <realName>', 'customer.realName')
    .option('--email <email>', 'customer.email')
    .option('--json', 'print {externalId, workflowId, runId, status, stage} as JSON')
    .addHelpText(
      'after',
      '\nThe flags set customer fields over --input. Example:\n  rampflow journey start --input @signup.json --external-id user-42',
    )
    .action(start);

  journey
    .command('status')
    .description(
      "a journey's current state: stage, what it waits for, why it is parked, its accounts and deposits; or how it ended when it failed, was terminated or timed out",
    )
    .argument('<externalId>', "the partner's user id")
    .option(
      '--json',
      'print the whole state as JSON (an ended one: {externalId, status, stage?, failure: {type, message, issues?}})',
    )
    .action(status);

  journey
    .command('list')
    .description(
      'journeys, newest first (Temporal visibility, a moment behind the workflows); a parked one with its reason, read from its state',
    )
    .addOption(new Option('--stage <stage>', 'only journeys at this stage').choices(JOURNEY_STAGES))
    .option('--limit <n>', 'at most this many (default 100)', positiveInteger)
    .option('--json', 'print the list as JSON')
    .action(list);

  addBulkOptions(
    journey
      .command('retry')
      .description(
        'resume a journey parked in NEEDS_ATTENTION at the stage that was parked; --all: every parked journey',
      )
      .argument('[externalId]', "the partner's user id")
      .option(
        '--input <json|@file>',
        'corrected input: {customer?, onramp?, offramp?}, each part given replaces that part whole',
      ),
    JOURNEY_STAGES,
    'journey',
  )
    .addHelpText('after', BULK_EXAMPLES('journey retry'))
    .action(retry);

  addBulkOptions(
    journey
      .command('cancel')
      .description('end a journey parked in NEEDS_ATTENTION (it closes with the reason); --all: every parked journey')
      .argument('[externalId]', "the partner's user id")
      .option('--reason <text>', 'recorded as the outcome'),
    JOURNEY_STAGES,
    'journey',
  )
    .addHelpText('after', BULK_EXAMPLES('journey cancel'))
    .action(cancel);

  journey
    .command('close')
    .description('end the customer relationship at any stage (deposits in flight finish on their own)')
    .argument('<externalId>', "the partner's user id")
    .option('--reason <text>', 'recorded as the outcome')
    .action(close);

  addResetCommand(journey, 'journey', { name: 'externalId', description: "the partner's user id" }, (id, options) =>
    withRampflowClient((rampflow) => rampflow.resetStuckJourney(id, options)),
  );
}
