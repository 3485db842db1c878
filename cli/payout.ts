/**
 * `rampflow payout create|status|list|retry|cancel|reset`: payouts from the partner's balance to a customer's
 * registered bank account, each a durable `payout/<reference>` workflow (connection from TEMPORAL_*).
 */
import { Command, Option } from 'commander';
import {
  PAYOUT_STAGES,
  PayoutClient,
  type PayoutBulkFilter,
  type PayoutStage,
  type PayoutState,
  type RampflowClient,
} from '../client';
import { addBulkOptions, BULK_EXAMPLES, isBulk, runBulkCommand, type BulkFlags } from './bulk';
import { positiveInteger, printJson, printStatus, withRampflowClient } from './client-session';
import { addResetCommand } from './reset-command';
import { readDeadline, withParkedReasons } from './parked-reasons';
import { attentionLine, formatPayoutList } from './state-format';

const payoutsOf = (rampflow: RampflowClient): PayoutClient => new PayoutClient(rampflow.temporal, rampflow.taskQueue);
const withPayouts = <T>(work: (payouts: PayoutClient) => Promise<T>): Promise<T> =>
  withRampflowClient((rampflow) => work(payoutsOf(rampflow)));

function formatPayout(state: PayoutState): string {
  const lines = [`payout ${state.reference}: ${state.stage}`];
  if (state.paymentId) lines.push(`  payment ${state.paymentId}: ${state.paymentStatus ?? 'unknown'}`);
  if (state.paymentFailureReason) lines.push(`  the service says: ${state.paymentFailureReason}`);
  if (state.receivedAmount)
    lines.push(`  the customer receives ${state.receivedAmount} ${state.receivedCurrency ?? ''}`.trimEnd());
  if (state.attention) lines.push(`  attention: ${attentionLine(state.attention)}`);
  if (state.cancelledBecause) lines.push(`  cancelled: ${state.cancelledBecause}`);
  return `${lines.join('\n')}\n`;
}

interface CreateOptions {
  reference: string;
  bankAccount: string;
  currency: 'USDT' | 'USDC';
  amount: string;
  wait?: boolean;
  json?: boolean;
}

/** `create --wait`'s exit code when the payout parked for an operator (1 is a failure, a cancel or an error). */
export const PARKED_EXIT_CODE = 2;

async function create(options: CreateOptions): Promise<void> {
  const state = await withPayouts(async (payouts) => {
    await payouts.start({
      reference: options.reference,
      bankAccountId: options.bankAccount,
      deductCurrency: options.currency,
      deductAmount: options.amount,
    });
    return options.wait ? payouts.result(options.reference) : payouts.state(options.reference);
  });
  if (options.json) printJson(state);
  else process.stdout.write(formatPayout(state));
  if (options.wait && state.stage !== 'SETTLED') {
    process.exitCode = state.stage === 'NEEDS_ATTENTION' ? PARKED_EXIT_CODE : 1;
    process.stderr.write(`rampflow: payout ${state.reference} ${waitEnd(state)}\n`);
  }
}

/** Why `create --wait` did not end in SETTLED, on one line. */
function waitEnd(state: PayoutState): string {
  if (state.stage === 'NEEDS_ATTENTION')
    return `parked in NEEDS_ATTENTION: ${state.attention?.reason ?? 'no reason recorded'}`;
  if (state.stage === 'CANCELLED') return `was cancelled: ${state.cancelledBecause ?? 'no reason recorded'}`;
  return `ended ${state.stage}${state.paymentFailureReason ? `: ${state.paymentFailureReason}` : ''}`;
}

async function list(options: { stage?: PayoutStage; limit?: number; json?: boolean }): Promise<void> {
  const payouts = await withRampflowClient(async (rampflow) => {
    const client = payoutsOf(rampflow);
    const listed = await client.listPayouts({
      ...(options.stage ? { stage: options.stage } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    });
    return withParkedReasons(
      listed,
      async (payout) => (await client.state(payout.reference)).attention,
      readDeadline(rampflow),
    );
  });
  if (options.json) printJson(payouts);
  else process.stdout.write(formatPayoutList(payouts));
}

type PayoutBulkFlags = BulkFlags & { stage?: PayoutStage };

function bulkFilter(flags: PayoutBulkFlags): PayoutBulkFilter {
  return { ...(flags.stage ? { stage: flags.stage } : {}), ...(flags.errorType ? { errorType: flags.errorType } : {}) };
}

async function retry(reference: string | undefined, options: PayoutBulkFlags): Promise<void> {
  if (isBulk(reference, options, 'reference')) {
    return withRampflowClient((rampflow) =>
      runBulkCommand({ verb: 'retry', noun: 'payout' }, options, (bulk) =>
        rampflow.retryAllPayouts(bulkFilter(options), bulk),
      ),
    );
  }
  await withPayouts((payouts) => payouts.retry(reference!));
  process.stdout.write(`payout ${reference} resumed\n`);
}

async function status(reference: string, options: { json?: boolean }): Promise<void> {
  await printStatus(
    { key: 'reference', value: reference },
    options,
    (rampflow) => payoutsOf(rampflow).state(reference),
    formatPayout,
  );
}

export function registerPayoutCommand(program: Command): void {
  const payout = program
    .command('payout')
    .description(
      "pay a customer's registered bank account from the partner's own balance, durably (connection from TEMPORAL_* variables)",
    );

  payout
    .command('create')
    .description(
      'start payout/<reference>, or show the payout that already has this reference (it is never paid twice)',
    )
    .requiredOption('--reference <ref>', "the partner's own reference (1-64 letters, digits, . _ : -)")
    .requiredOption('--bank-account <id>', "the service's id of the customer's registered bank account")
    .addOption(
      new Option('--currency <coin>', 'the stablecoin the balance is debited in')
        .choices(['USDT', 'USDC'])
        .makeOptionMandatory(),
    )
    .requiredOption('--amount <decimal>', 'the amount to debit, in --currency')
    .option(
      '--wait',
      `wait until the payout settles (exit 0), parks in NEEDS_ATTENTION (exit ${PARKED_EXIT_CODE}, with the reason) or fails or is cancelled (exit 1)`,
    )
    .option('--json', 'print the state as JSON')
    .action(create);

  payout
    .command('status')
    .description("a payout's stage, payment and parking reason")
    .argument('<reference>')
    .option('--json', 'print the state as JSON')
    .action(status);

  payout
    .command('list')
    .description(
      'payouts, newest first (Temporal visibility, a moment behind the workflows); a parked one with its reason, read from its state',
    )
    .addOption(new Option('--stage <stage>', 'only payouts at this stage').choices(PAYOUT_STAGES))
    .option('--limit <n>', 'at most this many (default 100)', positiveInteger)
    .option('--json', 'print the list as JSON')
    .addHelpText('after', '\nExample:\n  rampflow payout list --stage NEEDS_ATTENTION')
    .action(list);

  addBulkOptions(
    payout
      .command('retry')
      .description(
        'resume a payout parked in NEEDS_ATTENTION (after topping the balance up): it looks its payment up before creating it; --all: every parked payout',
      )
      .argument('[reference]', "the partner's own reference"),
    PAYOUT_STAGES,
    'payout',
  )
    .addHelpText('after', BULK_EXAMPLES('payout retry'))
    .action(retry);

  payout
    .command('cancel')
    .description(
      'end a payout parked in NEEDS_ATTENTION (CANCELLED, with the reason); refused while a payment exists at the service that has not failed',
    )
    .argument('<reference>')
    .option('--reason <text>', 'recorded as the outcome')
    .action(async (reference: string, options: { reason?: string }) => {
      await withPayouts((payouts) => payouts.cancel(reference, options.reason));
      process.stdout.write(`payout ${reference} cancelled\n`);
    });

  addResetCommand(payout, 'payout', { name: 'reference', description: "the partner's own reference" }, (id, options) =>
    withPayouts((payouts) => payouts.resetStuck(id, options)),
  );
}
