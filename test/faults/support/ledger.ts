/**
 * The end of every fault case: the service's records held against the journeys' states and against
 * what the partner paid in. Every problem found is listed (not only the first), so a failing case
 * says everything that was lost or doubled at once.
 *
 * - one customer per externalId, the one the journey knows;
 * - one virtual account, one deposit address, one ONRAMP and one OFFRAMP flow per customer, the ones
 *   the journey knows;
 * - exactly the deposits the partner made, each CONFIRMED at the service, each with one deposit
 *   workflow (one run) that finished COMPLETED, and shown COMPLETED by its journey; any other deposit
 *   workflow (a forged delivery's) ended DISMISSED;
 * - one SETTLED trade per deposit; each offramp trade names one payment, settled, and no two deposits
 *   share a payment.
 */
import type { Client } from '@temporalio/client';
import type { RampClient } from '../../../ramp';
import { shownDeposit } from '../../../workflows/journey/board';
import { depositStateQuery, depositWorkflowId, type JourneyState } from '../../../workflows/common/messages';
import { isPaymentSettled } from '../../../workflows/common/records';
import type { JourneyBatch } from './journeys';
import type { Partner } from './partner';
import { until } from './until';

export async function findProblems(options: {
  client: Client;
  ramp: RampClient;
  batch: JourneyBatch;
  partner: Partner;
}): Promise<string[]> {
  const { client, ramp, batch, partner } = options;
  const problems: string[] = [];
  const ours = new Set(batch.externalIds);

  // ---- customers -----------------------------------------------------------------------------
  const customersByExternalId = new Map<string, string[]>();
  for await (const customer of ramp.customers.iterate({ pageSize: 100 })) {
    if (customer.externalId && ours.has(customer.externalId))
      customersByExternalId.set(customer.externalId, [
        ...(customersByExternalId.get(customer.externalId) ?? []),
        customer.id,
      ]);
  }
  const flows: { id: string; type: string; from: string; status: string }[] = [];
  for await (const flow of ramp.autorampFlows.iterate({ pageSize: 100 })) flows.push(flow);
  const tradesByDeposit = new Map<string, { id: string; status: string; paymentId?: string }[]>();
  for await (const item of ramp.trades.iterate({ pageSize: 100 })) {
    const trade = await ramp.trades.detail({ id: item.id });
    const paymentId = typeof trade.paymentId === 'string' ? trade.paymentId : undefined;
    tradesByDeposit.set(trade.deposit.id, [
      ...(tradesByDeposit.get(trade.deposit.id) ?? []),
      { id: trade.id, status: trade.status, ...(paymentId ? { paymentId } : {}) },
    ]);
  }
  const paymentOwners = new Map<string, string>();

  for (const externalId of batch.externalIds) {
    const customerIds = customersByExternalId.get(externalId) ?? [];
    if (customerIds.length !== 1) {
      problems.push(`${externalId}: the service has ${customerIds.length} customers`);
      continue;
    }
    const customerId = customerIds[0]!;
    const state: JourneyState = await batch.rampflow.getJourney(externalId);
    if (state.stage !== 'ACTIVE')
      problems.push(
        `${externalId}: journey is ${state.stage}, not ACTIVE (${state.attention?.reason ?? state.waitingFor})`,
      );
    if (state.customer.id !== customerId)
      problems.push(`${externalId}: journey knows customer ${state.customer.id}, the service ${customerId}`);

    // ---- receiving accounts and flows --------------------------------------------------------
    const accounts: string[] = [];
    for await (const account of ramp.virtualAccounts.iterate({ customerId, pageSize: 100 })) accounts.push(account.id);
    const addresses: string[] = [];
    for await (const address of ramp.depositAddresses.iterate({ customerId, pageSize: 100 }))
      addresses.push(address.id);
    if (accounts.length !== 1) problems.push(`${externalId}: ${accounts.length} virtual accounts`);
    if (addresses.length !== 1) problems.push(`${externalId}: ${addresses.length} deposit addresses`);
    const onramps = flows.filter((flow) => flow.type === 'ONRAMP' && accounts.includes(flow.from));
    const offramps = flows.filter((flow) => flow.type === 'OFFRAMP' && addresses.includes(flow.from));
    if (onramps.length !== 1 || onramps[0]!.id !== state.onramp?.flowId)
      problems.push(
        `${externalId}: ONRAMP flows ${onramps.map((flow) => flow.id).join(',')}, journey knows ${state.onramp?.flowId}`,
      );
    if (offramps.length !== 1 || offramps[0]!.id !== state.offramp?.flowId)
      problems.push(
        `${externalId}: OFFRAMP flows ${offramps.map((flow) => flow.id).join(',')}, journey knows ${state.offramp?.flowId}`,
      );

    // ---- deposits ------------------------------------------------------------------------------
    const paid = partner.deposits.get(customerId) ?? {};
    const made = [paid.onramp, paid.offramp].filter((id): id is string => id !== undefined);
    if (made.length !== 2)
      problems.push(`${externalId}: the partner made ${made.length} deposits (the case did not drive it far enough)`);
    const atService: { id: string; status: string }[] = [];
    for await (const deposit of ramp.deposits.iterate({ customerId, pageSize: 100 })) atService.push(deposit);
    if (
      atService
        .map((deposit) => deposit.id)
        .sort()
        .join() !== [...made].sort().join()
    ) {
      problems.push(
        `${externalId}: the service has deposits ${atService.map((deposit) => deposit.id).join(',')}, the partner made ${made.join(',')}`,
      );
    }
    const shown = [...state.deposits.open, ...state.deposits.recent].map((deposit) => deposit.depositId).sort();
    if (shown.join() !== [...made].sort().join())
      problems.push(`${externalId}: journey shows deposits ${shown.join(',')}, the partner made ${made.join(',')}`);
    const counted = Object.values(state.deposits.byStage).reduce((sum, count) => sum + count, 0);
    if (counted !== made.length || state.deposits.byStage.COMPLETED !== made.length)
      problems.push(
        `${externalId}: journey counts deposits ${JSON.stringify(state.deposits.byStage)}, the partner made ${made.length}`,
      );

    for (const [kind, depositId] of [
      ['ONRAMP', paid.onramp],
      ['OFFRAMP', paid.offramp],
    ] as const) {
      if (!depositId) continue;
      const where = `${externalId} ${kind} deposit ${depositId}`;
      const status = atService.find((deposit) => deposit.id === depositId)?.status;
      if (status !== 'CONFIRMED') problems.push(`${where}: ${status} at the service`);
      const summary = shownDeposit(state.deposits, depositId);
      if (summary?.stage !== 'COMPLETED' || summary.kind !== kind)
        problems.push(`${where}: journey shows ${summary?.kind} ${summary?.stage}`);
      const trades = tradesByDeposit.get(depositId) ?? [];
      if (trades.length !== 1) {
        problems.push(`${where}: ${trades.length} trades`);
        continue;
      }
      const trade = trades[0]!;
      if (trade.status !== 'SETTLED') problems.push(`${where}: trade ${trade.id} is ${trade.status}`);
      const depositState = await client.workflow.getHandle(depositWorkflowId(depositId)).query(depositStateQuery);
      if (depositState.stage !== 'COMPLETED' || depositState.tradeId !== trade.id)
        problems.push(
          `${where}: deposit workflow shows ${depositState.stage}, trade ${depositState.tradeId} (service: ${trade.id})`,
        );
      if (kind === 'ONRAMP') continue;
      if (!trade.paymentId) {
        problems.push(`${where}: trade ${trade.id} names no payment`);
        continue;
      }
      const payment = await ramp.payments.detail({ id: trade.paymentId });
      if (!isPaymentSettled(payment.status)) problems.push(`${where}: payment ${payment.id} is ${payment.status}`);
      if (depositState.paymentId !== trade.paymentId || summary?.paymentId !== trade.paymentId)
        problems.push(
          `${where}: workflows know payment ${depositState.paymentId}/${summary?.paymentId}, the trade ${trade.paymentId}`,
        );
      const owner = paymentOwners.get(trade.paymentId);
      if (owner) problems.push(`${where}: payment ${trade.paymentId} also pays out deposit ${owner}`);
      paymentOwners.set(trade.paymentId, depositId);
    }
  }

  // ---- deposit workflows: one run each, every one COMPLETED --------------------------------------
  const expected = new Set(
    [...partner.deposits.values()]
      .flatMap((paid) => [paid.onramp, paid.offramp])
      .filter((id): id is string => id !== undefined)
      .map(depositWorkflowId),
  );
  const runs = await until(
    'visibility to list every deposit workflow as closed',
    async () => {
      const listed: { workflowId: string; status: string; result?: unknown }[] = [];
      for await (const execution of client.workflow.list({ query: "WorkflowType = 'depositLifecycle'" }))
        listed.push({ workflowId: execution.workflowId, status: execution.status.name });
      return listed.length >= expected.size && listed.every((run) => run.status !== 'RUNNING') ? listed : undefined;
    },
    { timeoutMs: 30_000 },
  );
  const runsPerWorkflow = new Map<string, number>();
  for (const run of runs) runsPerWorkflow.set(run.workflowId, (runsPerWorkflow.get(run.workflowId) ?? 0) + 1);
  for (const [workflowId, count] of runsPerWorkflow) {
    if (!expected.has(workflowId)) {
      // A delivery about a deposit the service does not have (a forgery) may start a workflow, which
      // reads the service and ends DISMISSED, having counted and reported nothing.
      const outcome = (await client.workflow.getHandle(workflowId).result()) as { stage: string };
      if (outcome.stage !== 'DISMISSED')
        problems.push(`${workflowId}: a deposit workflow for a deposit the partner never made, ended ${outcome.stage}`);
      continue;
    }
    if (count !== 1) problems.push(`${workflowId}: ${count} runs`);
  }
  for (const workflowId of expected) {
    if (!runsPerWorkflow.has(workflowId)) {
      problems.push(`${workflowId}: never started`);
      continue;
    }
    const outcome = (await client.workflow.getHandle(workflowId).result()) as { stage: string };
    if (outcome.stage !== 'COMPLETED') problems.push(`${workflowId}: ended ${outcome.stage}`);
  }
  return problems;
}
