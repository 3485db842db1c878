/**
 * The operator of the chaos run: acts on what parks with the `rampflow` CLI, as the runbooks tell an
 * operator to (docs/operating/README.md, docs/integrating/payouts.md, docs/operating/bulk-actions.md,
 * docs/integrating/partner-events.md), in a child process of its own configured by TEMPORAL_* (and
 * PARTNER_EVENTS_DATABASE_URL for the event store).
 * A command that fails throws with its stderr, so the customer's step is tried again next round.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../test/support/run';

const run = promisify(execFile);
const RAMPFLOW = join(PROJECT_ROOT, 'bin', 'rampflow.cjs');
/** A CLI start plus one update, with room for a worker the schedule just killed. */
const COMMAND_TIMEOUT_MS = 60_000;

async function rampflow(env: NodeJS.ProcessEnv, args: string[]): Promise<void> {
  try {
    await run(process.execPath, [RAMPFLOW, ...args], { env, timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '')
      .trim()
      .split('\n')
      .at(-1);
    throw new Error(`rampflow ${args.slice(0, 2).join(' ')} failed: ${stderr || String(error)}`, { cause: error });
  }
}

/** `rampflow payout retry <reference>`: after the balance was topped up. */
export const operatorRetriesPayout = (env: NodeJS.ProcessEnv, reference: string): Promise<void> =>
  rampflow(env, ['payout', 'retry', reference]);

/**
 * `rampflow payout retry --all --error-type Refused` (docs/operating/bulk-actions.md): every payout
 * parked for a short balance at this moment, after the balance was topped up. A payout that moved on
 * since it was listed is refused by its validator, which the command does not count as a failure.
 */
export const operatorRetriesRefusedPayouts = (env: NodeJS.ProcessEnv): Promise<void> =>
  rampflow(env, ['payout', 'retry', '--all', '--error-type', 'Refused']);

/** `rampflow payout cancel <reference>`: refused (and tried again) while a payment exists that has not failed. */
export const operatorCancelsPayout = (env: NodeJS.ProcessEnv, reference: string): Promise<void> =>
  rampflow(env, ['payout', 'cancel', reference, '--reason', 'chaos: the operator paid it by hand']);

/** `rampflow partner-events enable <name>`: once the partner's endpoint that answered 410 Gone accepts again. */
export const operatorEnablesEndpoint = (env: NodeJS.ProcessEnv, name: string): Promise<void> =>
  rampflow(env, ['partner-events', 'enable', name]);

/** `rampflow deposit retry <depositId>`: the deposit reads its payout again (and parks again while it stays failed). */
export const operatorRetriesDeposit = (env: NodeJS.ProcessEnv, depositId: string): Promise<void> =>
  rampflow(env, ['deposit', 'retry', depositId]);

/** `rampflow deposit cancel <depositId>`: a payout the service failed, settled with the customer by hand. */
export const operatorCancelsDeposit = (env: NodeJS.ProcessEnv, depositId: string): Promise<void> =>
  rampflow(env, ['deposit', 'cancel', depositId, '--reason', 'chaos: the payout failed; refunded by hand']);

/**
 * `rampflow deposit cancel --all --error-type PaymentFailed` (docs/operating/bulk-actions.md): every
 * deposit parked on a failed payout at this moment, another customer's too.
 */
export const operatorCancelsFailedPayoutDeposits = (env: NodeJS.ProcessEnv): Promise<void> =>
  rampflow(env, [
    'deposit',
    'cancel',
    '--all',
    '--error-type',
    'PaymentFailed',
    '--reason',
    'chaos: the payout failed; refunded by hand',
  ]);

/** `rampflow journey retry <externalId>`: once the service no longer refuses what parked it. */
export const operatorRetriesJourney = (env: NodeJS.ProcessEnv, externalId: string): Promise<void> =>
  rampflow(env, ['journey', 'retry', externalId]);

/**
 * `rampflow journey retry --all --error-type Refused` (docs/operating/bulk-actions.md): every journey
 * parked as refused at this moment, another customer's too (one still refused parks again).
 */
export const operatorRetriesRefusedJourneys = (env: NodeJS.ProcessEnv): Promise<void> =>
  rampflow(env, ['journey', 'retry', '--all', '--error-type', 'Refused']);

/** `rampflow journey cancel <externalId>`: the signup is given up; the journey ends CLOSED. */
export const operatorCancelsJourney = (env: NodeJS.ProcessEnv, externalId: string): Promise<void> =>
  rampflow(env, ['journey', 'cancel', externalId, '--reason', 'chaos: the service will not take this customer']);
