/**
 * `rampflow deposit status|list|attach|retry|cancel`: the operator's view of deposit workflows
 * (`deposit/<depositId>`), through the client library, connected by the TEMPORAL_* environment.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { Command, Option } from 'commander';
import { DEPOSIT_STAGES, type DepositStage } from '../client';
import { positiveInteger, printJson, withRampflowClient } from './client-session';
import { formatDepositList, formatDepositState } from './state-format';

// What the service is likely to ask for; anything else takes --content-type.
const CONTENT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

async function status(depositId: string, options: { json?: boolean }): Promise<void> {
  const state = await withRampflowClient((rampflow) => rampflow.getDeposit(depositId));
  if (options.json) printJson(state);
  else process.stdout.write(formatDepositState(state));
}

async function list(options: { stage?: DepositStage; externalId?: string; limit?: number; json?: boolean }): Promise<void> {
  const deposits = await withRampflowClient((rampflow) =>
    rampflow.listDeposits({
      ...(options.stage ? { stage: options.stage } : {}),
      ...(options.externalId ? { externalId: options.externalId } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    }),
  );
  if (options.json) printJson(deposits);
  else process.stdout.write(formatDepositList(deposits));
}

async function attach(depositId: string, file: string, options: { contentType?: string; fileName?: string }): Promise<void> {
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

async function retry(depositId: string): Promise<void> {
  const { resumed } = await withRampflowClient((rampflow) => rampflow.retryDeposit(depositId));
  process.stdout.write(`deposit ${depositId} resumed at ${resumed}\n`);
}

async function cancel(depositId: string, options: { reason?: string }): Promise<void> {
  await withRampflowClient((rampflow) => rampflow.cancelDeposit(depositId, options.reason));
  process.stdout.write(`deposit ${depositId} cancelled\n`);
}

export function registerDepositCommand(program: Command): void {
  const deposit = program
    .command('deposit')
    .description("inspect and list deposit workflows, submit the attachment the service asked for, retry or cancel a parked deposit (connection from TEMPORAL_* variables)");

  deposit
    .command('status')
    .description("a deposit's current state: stage, what it waits for, its trade and payment")
    .argument('<depositId>', "the service's deposit id")
    .option('--json', 'print the whole state as JSON')
    .action(status);

  deposit
    .command('list')
    .description('deposits, newest first (Temporal visibility, a moment behind the workflows)')
    .addOption(new Option('--stage <stage>', 'only deposits at this stage').choices(DEPOSIT_STAGES))
    .option('--external-id <id>', "only the deposits of this customer's journey")
    .option('--limit <n>', 'at most this many (default 100)', positiveInteger)
    .option('--json', 'print the list as JSON')
    .action(list);

  deposit
    .command('attach')
    .description('submit the document the service asked for to a deposit in ACTION_REQUIRED (keep it well under 1 MB: it is kept in the workflow history)')
    .argument('<depositId>', "the service's deposit id")
    .argument('<file>', 'the document')
    .option('--content-type <type>', 'MIME type (default from the extension: .pdf, .png, .jpg)')
    .option('--file-name <name>', 'the name the service sees (default: the file\'s own)')
    .action(attach);

  deposit
    .command('retry')
    .description('resume a deposit parked in NEEDS_ATTENTION at the step that was parked')
    .argument('<depositId>', "the service's deposit id")
    .action(retry);

  deposit
    .command('cancel')
    .description('end a deposit parked in NEEDS_ATTENTION (CANCELLED, with the reason)')
    .argument('<depositId>', "the service's deposit id")
    .option('--reason <text>', 'recorded as the outcome')
    .action(cancel);
}
