/**
 * The demo of `rampflow dev`: one customer from signup to payout. It starts a journey with an AUD
 * onramp and a USDT offramp through the client library; the journey registers the customer's wallet
 * and bank account itself. The demo plays the customer's part (money each way, through the service's
 * own simulated deposit, POST /deposit/mock) and prints every change of stage live until both
 * deposits have completed. The sandbox's autopilot plays the service; its webhooks, through the
 * receiver, wake the journey. No /sandbox/... call is needed.
 */
import { type JourneyState, journeyWorkflowId } from '../workflows/common/messages';
import type { Stack } from './stack';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const BANK_ACCOUNT = {
  accountNo: '987654321',
  currency: 'AUD',
  bankName: 'Demo Bank',
  swift: 'DEMOAU2S',
  beneficiaryName: 'Ada Lovelace',
} as const;
const AUD_SOURCE = { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
const DEMO_PREFIX = 'demo-';

export interface DemoOptions {
  progress: (line: string) => void;
  /** Give up (and say where it stopped) after this long. */
  timeoutMs: number;
  /** Ends the demo quietly at its next step (Ctrl-C), so no call is in flight when the stack stops. */
  signal: AbortSignal;
}

/** The Web UI page of a workflow. */
export function workflowUiUrl(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * Demo journeys of an earlier `rampflow dev` survive in the dev server's database, but their sandbox
 * records do not (the sandbox keeps state in memory): end them, so they do not park noisily.
 */
async function endEarlierDemos(stack: Stack, progress: (line: string) => void): Promise<void> {
  const client = stack.rampflow.temporal;
  let ended = 0;
  for await (const execution of client.workflow.list({
    query: `ExecutionStatus = 'Running' AND RampExternalId STARTS_WITH '${DEMO_PREFIX}'`,
  })) {
    await client.workflow
      .getHandle(execution.workflowId)
      .terminate('an earlier rampflow dev demo; its sandbox is gone')
      .catch(() => undefined);
    ended += 1;
  }
  if (ended > 0) progress(`    ended ${ended} workflow(s) left running by an earlier demo`);
}

export async function runDemo(stack: Stack, options: DemoOptions): Promise<void> {
  const { progress } = options;
  await endEarlierDemos(stack, progress);

  const externalId = `${DEMO_PREFIX}${Date.now().toString(36)}`;
  // Signup in one round trip: the answer carries the KYC link when the service gives it in time.
  const signup = await stack.rampflow.signUp({
    customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
    onramp: {
      currency: 'AUD',
      cryptoAddress: { address: WALLET, network: 'ETH', currency: 'USDT', registeredBy: 'journey' },
      audSourceAccount: AUD_SOURCE,
    },
    offramp: { currency: 'USDT', network: 'ETH', bankAccount: { ...BANK_ACCOUNT, registeredBy: 'journey' } },
    // Production's timings: webhooks drive the demo, and the AUD whitelist, which no event announces,
    // is polled early (workflows/common/waiting.ts), so the onramp is ACTIVE seconds after its approval.
  });
  const { uiUrl, namespace } = stack.temporal;
  progress(
    `demo journey ${journeyWorkflowId(externalId)}${uiUrl ? `: ${workflowUiUrl(uiUrl, namespace, journeyWorkflowId(externalId))}` : ''}`,
  );
  if (signup.kycLink) progress(`  signup answered ${signup.stage ?? ''}: the customer passes KYC at ${signup.kycLink}`);

  const started = Date.now();
  let exitsShown = false;
  let depositsSent = false;
  let lastLine = '';
  const depositStages = new Map<string, string>();
  while (!options.signal.aborted) {
    const state: JourneyState = await stack.rampflow.getJourney(externalId);
    const line = `journey ${state.stage}: waiting for ${state.waitingFor}`;
    if (line !== lastLine) progress(`  ${line}`);
    lastLine = line;

    for (const deposit of [...state.deposits.open, ...state.deposits.recent]) {
      if (depositStages.get(deposit.depositId) === deposit.stage) continue;
      depositStages.set(deposit.depositId, deposit.stage);
      progress(
        `  deposit ${deposit.depositId.slice(0, 8)} (${deposit.kind}, ${deposit.amount} ${deposit.currency}): ${deposit.stage}`,
      );
    }

    if (state.stage === 'NEEDS_ATTENTION' || state.stage === 'REJECTED' || state.stage === 'CLOSED') {
      throw new Error(
        `the demo journey stopped in ${state.stage}: ${state.attention?.reason ?? state.outcome ?? 'no reason given'}`,
      );
    }
    if (!exitsShown && state.onramp?.cryptoAddressId && state.offramp?.bankAccountId) {
      exitsShown = true;
      progress(
        `  journey: registered the customer's wallet ${WALLET.slice(0, 10)}… and bank account ${BANK_ACCOUNT.accountNo} with the service`,
      );
    }
    if (!depositsSent && state.stage === 'ACTIVE' && state.onramp?.virtualAccount && state.offramp?.depositAddress) {
      const account = state.onramp.virtualAccount;
      progress(
        `  customer: pays 100.00 AUD into ${account.bankName ?? 'the virtual account'} ${account.accountNumber ?? account.id} and sends 50 USDT to ${state.offramp.depositAddress.address ?? state.offramp.depositAddress.id}`,
      );
      await stack.ramp.deposits.mock({
        virtualAccountId: account.id,
        amount: '100.00',
        currency: 'AUD',
        sender: AUD_SOURCE,
      });
      await stack.ramp.deposits.mock({
        depositAddressId: state.offramp.depositAddress.id,
        amount: '50.00',
        currency: 'USDT',
        sender: { address: '0x000000000000000000000000000000000000dEaD', network: 'ETH' },
      });
      depositsSent = true;
    }
    // Since 1.4 the journey records its events by activity, then pushes them: the last ones can still
    // be on their way when it counts both deposits, and --once would stop the stack before they came.
    if (depositsSent && state.deposits.byStage.COMPLETED === 2 && bothCompletionsHeard(stack)) {
      progress(
        `done: the crypto reached the wallet and the payout reached the bank account, ${Math.round((Date.now() - started) / 1000)} s after signup`,
      );
      return;
    }
    if (Date.now() - started > options.timeoutMs) {
      throw new Error(
        `the demo did not finish within ${Math.round(options.timeoutMs / 1000)} s; it stopped at: ${line}`,
      );
    }
    await new Promise((wake) => setTimeout(wake, 300));
  }
}

/** The local endpoint printed both deposits' `deposit.completed` (always true when the developer's own endpoints take the events). */
function bothCompletionsHeard(stack: Stack): boolean {
  const heard = stack.heardPartnerEvents;
  return heard === undefined || heard.filter((line) => line.includes('deposit.completed ')).length >= 2;
}
