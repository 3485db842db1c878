/**
 * `rampflow payout create|status|retry|cancel`: payouts from the partner's balance to a customer's
 * registered bank account, each a durable `payout/<reference>` workflow (connection from TEMPORAL_*).
 */
import { Command, Option } from 'commander';
import { PayoutClient, type PayoutState, type RampflowClient } from '../client';
import { printJson, printStatus, withRampflowClient } from './client-session';
import { attentionLine } from './state-format';

const payoutsOf = (rampflow: RampflowClient): PayoutClient => new PayoutClient(rampflow.temporal, rampflow.taskQueue);
const withPayouts = <T>(work: (payouts: PayoutClient) => Promise<T>): Promise<T> => withRampflowClient((rampflow) => work(payoutsOf(rampflow)));

function formatPayout(state: PayoutState): string {
  const lines = [`payout ${state.reference}: ${state.stage}`];
  if (state.paymentId) lines.push(`  payment ${state.paymentId}: ${state.paymentStatus ?? 'unknown'}`);
  if (state.paymentFailureReason) lines.push(`  the service says: ${state.paymentFailureReason}`);
  if (state.receivedAmount) lines.push(`  the customer receives ${state.receivedAmount} ${state.receivedCurrency ?? ''}`.trimEnd());
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

async function create(options: CreateOptions): Promise<void> {
  const state = await withPayouts(async (payouts) => {
    await payouts.start({ reference: options.reference, bankAccountId: options.bankAccount, deductCurrency: options.currency, deductAmount: options.amount });
    return options.wait ? payouts.result(options.reference) : payouts.state(options.reference);
  });
  if (options.json) printJson(state);
  else process.stdout.write(formatPayout(state));
}

async function status(reference: string, options: { json?: boolean }): Promise<void> {
  await printStatus({ key: 'reference', value: reference }, options, (rampflow) => payoutsOf(rampflow).state(reference), formatPayout);
}

export function registerPayoutCommand(program: Command): void {
  const payout = program
    .command('payout')
    .description("pay a customer's registered bank account from the partner's own balance, durably (connection from TEMPORAL_* variables)");

  payout
    .command('create')
    .description('start payout/<reference>, or show the payout that already has this reference (it is never paid twice)')
    .requiredOption('--reference <ref>', "the partner's own reference (1-64 letters, digits, . _ : -)")
    .requiredOption('--bank-account <id>', "the service's id of the customer's registered bank account")
    .addOption(new Option('--currency <coin>', 'the stablecoin the balance is debited in').choices(['USDT', 'USDC']).makeOptionMandatory())
    .requiredOption('--amount <decimal>', 'the amount to debit, in --currency')
    .option('--wait', 'wait until the payout settles, parks or is cancelled')
    .option('--json', 'print the state as JSON')
    .action(create);

  payout.command('status').description("a payout's stage, payment and parking reason").argument('<reference>').option('--json', 'print the state as JSON').action(status);

  payout
    .command('retry')
    .description('resume a payout parked in NEEDS_ATTENTION (after topping the balance up): it looks its payment up before creating it')
    .argument('<reference>')
    .action(async (reference: string) => {
      await withPayouts((payouts) => payouts.retry(reference));
      process.stdout.write(`payout ${reference} resumed\n`);
    });

  payout
    .command('cancel')
    .description('end a payout parked in NEEDS_ATTENTION (CANCELLED, with the reason); refused while a payment exists at the service that has not failed')
    .argument('<reference>')
    .option('--reason <text>', 'recorded as the outcome')
    .action(async (reference: string, options: { reason?: string }) => {
      await withPayouts((payouts) => payouts.cancel(reference, options.reason));
      process.stdout.write(`payout ${reference} cancelled\n`);
    });
}
