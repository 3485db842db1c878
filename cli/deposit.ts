/**
 * `rampflow deposit status|list|attach|retry|cancel|reset`: the operator's view of deposit workflows
 * (`deposit/<depositId>`), through the client library, connected by the TEMPORAL_* environment.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { Command, Option } from 'commander';
import {
  DEFAULT_PAGE_SIZE,
  DEPOSIT_STAGES,
  MAX_PAGE_SIZE,
  type DepositBulkFilter,
  type DepositListItem,
  type DepositPage,
  type DepositPageFilter,
  type DepositStage,
  type RampflowClient,
} from '../client';
import { addBulkOptions, BULK_EXAMPLES, isBulk, runBulkCommand, type BulkCommand, type BulkFlags } from './bulk';
import { positiveInteger, printJson, printStatus, withRampflowClient } from './client-session';
import { addResetCommand } from './reset-command';
import { readDeadline, withParkedReasons } from './parked-reasons';
import { formatDepositPage, formatDepositState } from './state-format';

// What the service is likely to ask for; anything else takes --content-type.
const CONTENT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

async function status(depositId: string, options: { json?: boolean }): Promise<void> {
  await printStatus(
    { key: 'depositId', value: depositId },
    options,
    (rampflow) => rampflow.getDeposit(depositId),
    formatDepositState,
  );
}

interface ListOptions {
  customer?: string;
  stage?: DepositStage;
  pageSize?: number;
  pageToken?: string;
  all?: boolean;
  json?: boolean;
}

async function listedPage(
  rampflow: RampflowClient,
  options: ListOptions,
  filter: DepositPageFilter,
  pageSize: { pageSize?: number },
): Promise<DepositPage> {
  if (!options.all)
    return rampflow.listDepositsPage(filter, {
      ...pageSize,
      ...(options.pageToken ? { nextPageToken: options.pageToken } : {}),
    });
  const deposits: DepositListItem[] = [];
  for await (const deposit of rampflow.iterateDeposits(filter, pageSize)) deposits.push(deposit);
  return { deposits };
}

/** One page (with the next page's token), or with --all every page, in the same shape; parked rows with their reason. */
async function list(options: ListOptions): Promise<void> {
  if (options.all && options.pageToken !== undefined) throw new Error('give either --page-token or --all, not both');
  const filter: DepositPageFilter = {
    ...(options.customer ? { externalId: options.customer } : {}),
    ...(options.stage ? { stage: options.stage } : {}),
  };
  const pageSize = options.pageSize ? { pageSize: options.pageSize } : {};
  const page = await withRampflowClient(async (rampflow) => {
    const listed = await listedPage(rampflow, options, filter, pageSize);
    return {
      ...listed,
      deposits: await withParkedReasons(
        listed.deposits,
        async (deposit) => (await rampflow.getDeposit(deposit.depositId)).attention,
        readDeadline(rampflow),
      ),
    };
  });
  if (options.json) printJson(page);
  else process.stdout.write(formatDepositPage(page));
}

type DepositBulkFlags = BulkFlags & { stage?: DepositStage; customer?: string };

function bulkFilter(flags: DepositBulkFlags): DepositBulkFilter {
  return {
    ...(flags.stage ? { stage: flags.stage } : {}),
    ...(flags.customer ? { externalId: flags.customer } : {}),
    ...(flags.errorType ? { errorType: flags.errorType } : {}),
  };
}

const bulkCommand = (verb: BulkCommand['verb'], flags: DepositBulkFlags): BulkCommand => ({
  verb,
  noun: 'deposit',
  ...(flags.customer ? { scope: `of customer ${flags.customer}` } : {}),
});

/** --customer narrows a bulk action; it means nothing for one deposit. */
function isDepositBulk(depositId: string | undefined, flags: DepositBulkFlags): boolean {
  const bulk = isBulk(depositId, flags, 'depositId');
  if (!bulk && flags.customer !== undefined) throw new Error('--customer needs --all');
  return bulk;
}

async function attach(
  depositId: string,
  file: string,
  options: { contentType?: string; fileName?: string },
): Promise<void> {
  const contentType = options.contentType ?? CONTENT_TYPES[extname(file).toLowerCase()];
  if (!contentType) throw new Error(`cannot tell the content type of ${basename(file)}: pass --content-type`);
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const attachment = { fileName: options.fileName ?? basename(file), contentType, content };
  await withRampflowClient((rampflow) => rampflow.submitAttachment(depositId, attachment));
  process.stdout.write(`deposit ${depositId}: ${attachment.fileName} submitted to the service\n`);
}

async function retry(depositId: string | undefined, options: DepositBulkFlags): Promise<void> {
  if (isDepositBulk(depositId, options)) {
    return withRampflowClient((rampflow) =>
      runBulkCommand(bulkCommand('retry', options), options, (bulk) =>
        rampflow.retryAllDeposits(bulkFilter(options), bulk),
      ),
    );
  }
  const { resumed } = await withRampflowClient((rampflow) => rampflow.retryDeposit(depositId!));
  process.stdout.write(`deposit ${depositId} resumed at ${resumed}\n`);
}

async function cancel(depositId: string | undefined, options: DepositBulkFlags & { reason?: string }): Promise<void> {
  if (isDepositBulk(depositId, options)) {
    const reason = options.reason === undefined ? {} : { reason: options.reason };
    return withRampflowClient((rampflow) =>
      runBulkCommand(bulkCommand('cancel', options), options, (bulk) =>
        rampflow.cancelAllDeposits(bulkFilter(options), { ...bulk, ...reason }),
      ),
    );
  }
  await withRampflowClient((rampflow) => rampflow.cancelDeposit(depositId!, options.reason));
  process.stdout.write(`deposit ${depositId} cancelled\n`);
}

export function registerDepositCommand(program: Command): void {
  const deposit = program
    .command('deposit')
    .description(
      'inspect and list deposit workflows, submit the attachment the service asked for, retry or cancel a parked deposit, reset a stuck one (connection from TEMPORAL_* variables)',
    );

  deposit
    .command('status')
    .description(
      "a deposit's current state: stage, what it waits for, its trade and payment; or how it ended when its workflow failed, was terminated or timed out",
    )
    .argument('<depositId>', "the service's deposit id")
    .option('--json', 'print the whole state as JSON')
    .action(status);

  deposit
    .command('list')
    .description(
      'deposits a page at a time, running ones first, then the most recently ended (Temporal visibility, a moment behind the workflows); a parked one with its reason, read from its state',
    )
    .option('--customer <externalId>', "only this customer's deposits, its whole history")
    .addOption(new Option('--stage <stage>', 'only deposits at this stage').choices(DEPOSIT_STAGES))
    .option(
      '--page-size <n>',
      `deposits per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
      positiveInteger,
    )
    .option('--page-token <token>', 'the page after the one that printed this token')
    .option('--all', 'every page, one after the other')
    .option('--json', 'print {deposits, nextPageToken?} as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  rampflow deposit list --customer user-42\n  rampflow deposit list --stage NEEDS_ATTENTION --all --json',
    )
    .action(list);

  deposit
    .command('attach')
    .description(
      'submit the document the service asked for to a deposit in ACTION_REQUIRED (a deposit last read RECEIVED reads the service first; at most 10 MiB; the file goes to the attachment store, only its reference to Temporal)',
    )
    .argument('<depositId>', "the service's deposit id")
    .argument('<file>', 'the document')
    .option('--content-type <type>', 'MIME type (default from the extension: .pdf, .png, .jpg)')
    .option('--file-name <name>', "the name the service sees (default: the file's own)")
    .action(attach);

  addBulkOptions(
    deposit
      .command('retry')
      .description(
        'resume a deposit parked in NEEDS_ATTENTION at the step that was parked; --all: every parked deposit',
      )
      .argument('[depositId]', "the service's deposit id")
      .option('--customer <externalId>', "with --all: only this customer's deposits"),
    DEPOSIT_STAGES,
    'deposit',
  )
    .addHelpText('after', BULK_EXAMPLES('deposit retry'))
    .action(retry);

  addBulkOptions(
    deposit
      .command('cancel')
      .description('end a deposit parked in NEEDS_ATTENTION (CANCELLED, with the reason); --all: every parked deposit')
      .argument('[depositId]', "the service's deposit id")
      .option('--reason <text>', 'recorded as the outcome')
      .option('--customer <externalId>', "with --all: only this customer's deposits"),
    DEPOSIT_STAGES,
    'deposit',
  )
    .addHelpText('after', BULK_EXAMPLES('deposit cancel'))
    .action(cancel);

  addResetCommand(deposit, 'deposit', { name: 'depositId', description: "the service's deposit id" }, (id, options) =>
    withRampflowClient((rampflow) => rampflow.resetStuckDeposit(id, options)),
  );
}
