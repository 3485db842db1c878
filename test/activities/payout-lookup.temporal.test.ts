/**
 * The payout's look-up by reference is bounded per attempt ("Nothing wedges", item 8). The reference
 * filter of GET /payment/list is rampflow's assumption; against a service that ignores it, the
 * look-up is a search of the partner's every payment. Here the worker's client sends the filter
 * under a name the sandbox does not know, so the sandbox lists every payment, and the payout's
 * create must find the payment made before its answer was lost without walking the whole list in one
 * attempt: a slice of pages per attempt, each resuming from the last one's heartbeat, every page read
 * once.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayoutActivities } from '../../activities';
import { DEFAULT_PAGES_PER_ATTEMPT } from '../../activities/list-search';
import { dataConverterFromEnv } from '../../codec';
import { RampClient } from '../../ramp';
import type { PaymentRecord } from '../../workflows/common/records';
import { connectClient, connectWorker, uniqueTaskQueue } from '../support/temporal';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';
import type { ensurePayout } from '../support/workflows/payout-lookups';

const QUIET_BUNDLER = { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error };

let client: Awaited<ReturnType<typeof connectClient>>;
let s: TestSandbox;
let workerRamp: RampClient;
let worker: Worker;
let running: Promise<void>;
const taskQueue = uniqueTaskQueue('payout-lookup');
/** The worker's calls per path. */
const calls = new Map<string, number>();

beforeAll(async () => {
  client = await connectClient();
  s = await startTestSandbox();
  workerRamp = new RampClient({
    baseUrl: s.sandbox.url,
    ...TEST_PARTNER,
    // A name the sandbox does not know: it lists every payment, as a service ignoring the filter would.
    assumptions: { queryParameterNames: { reference: 'partnerReference' } },
    onCanonicalString: (canonical) => {
      const path = canonical.split('\n')[2]!;
      calls.set(path, (calls.get(path) ?? 0) + 1);
    },
  });
  worker = await Worker.create({
    connection: await connectWorker(),
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: join(__dirname, '..', 'support', 'workflows', 'payout-lookups.ts'),
      logger: QUIET_BUNDLER,
    }),
    dataConverter: dataConverterFromEnv(),
    activities: createPayoutActivities(workerRamp),
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await workerRamp?.close();
  await s?.close();
  await client?.close();
});

/** `count` payouts of 1 USDT to the account, a few at a time. */
async function payOut(bankAccountId: string, count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next += 1;
      await s.ramp.payments.create({
        reference: `other-${randomUUID()}`,
        bankAccountId,
        deductCurrency: 'USDT',
        deductAmount: '1',
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
}

describe("the payout's look-up by reference, against a service that ignores the filter", () => {
  it('reads a slice of pages per attempt and resumes from the heartbeat, finding the payment without creating another', async () => {
    const { id: customerId } = await s.ramp.customers.create({
      externalId: `payee-${randomUUID()}`,
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    await s.control.approveCustomer(customerId!);
    const { id: bankAccountId } = (await s.ramp.bankAccounts.add({
      customerId: customerId!,
      currency: 'GBP',
      bankName: 'Barclays',
      accountNo: '20000012345678',
      swift: 'BARCGB22',
      beneficiaryName: 'Ada Lovelace',
    })) as { id: string };
    await s.control.creditBalance({ currency: 'USDT', amount: '5000' });
    // The payment whose create answer was lost sits in the middle of 4,001 payments: page 21 of 41.
    await payOut(bankAccountId, 2_000);
    const order = {
      reference: `po-${randomUUID()}`,
      bankAccountId,
      deductCurrency: 'USDT' as const,
      deductAmount: '1',
    };
    const { id: paymentId } = await s.ramp.payments.create(order);
    await payOut(bankAccountId, 2_000);

    calls.clear();
    const handle = await client.client.workflow.start<typeof ensurePayout>('ensurePayout', {
      taskQueue,
      workflowId: `ensure-payout-${randomUUID()}`,
      args: [order],
    });
    const found: PaymentRecord = await handle.result();
    expect(found.id).toBe(paymentId);
    expect(calls.has('/payment/create')).toBe(false);

    let attempts = 0;
    for (const event of (await handle.fetchHistory()).events ?? []) {
      if (event.activityTaskStartedEventAttributes)
        attempts = Math.max(attempts, event.activityTaskStartedEventAttributes.attempt ?? 0);
    }
    // Past the first attempt's slice, the next attempt went on where it stopped: no page read twice.
    expect(attempts).toBeGreaterThanOrEqual(2);
    const pages = calls.get('/payment/list')!;
    expect(pages).toBeGreaterThan(DEFAULT_PAGES_PER_ATTEMPT);
    expect(pages).toBeLessThanOrEqual(23);
  });
});
