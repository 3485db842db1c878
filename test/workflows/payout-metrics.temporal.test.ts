/**
 * Money paid out, where operators look: the worker process (`rampflow worker`) serves a settled
 * payout's amount as `rampflow_payout_amount` (a float histogram: `_sum` is the money, `_count` the
 * payouts) by the currency deducted from the partner's balance, never by reference, payment or customer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient } from '../../client/payouts';
import { freePort } from '../../dev/ports';
import { payoutStateQuery } from '../../workflows/payout/messages';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { until } from '../support/until';
import { startWorkerProcess, testWorkerEnv, type WorkerProcess } from '../support/worker-process';

let h: JourneyHarness;
let worker: WorkerProcess;
let metricsUrl: string;

beforeAll(async () => {
  h = await startJourneyHarness();
  // The harness's in-process worker makes way for the real process, whose endpoint operators scrape.
  await h.stopWorker();
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  worker = startWorkerProcess(
    testWorkerEnv({ taskQueue: h.taskQueue, sandboxUrl: h.sandbox.url, metricsPort, logLevel: 'error' }),
  );
  await until(
    'the worker to serve its metrics',
    async () => ((await fetch(metricsUrl).catch(() => undefined))?.ok ? true : undefined),
    90_000,
  );
}, 120_000);
afterAll(async () => {
  worker?.child.kill('SIGTERM');
  await worker?.exited;
  await h?.close();
});

/** The series of one metric on the worker's endpoint, as `{labels} value` lines. */
async function series(name: string): Promise<string[]> {
  const text = await (await fetch(metricsUrl)).text();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`));
}

describe("a settled payout on the worker's metrics endpoint", () => {
  it('adds its amount to rampflow_payout_amount by the currency deducted, with no id among the labels', async () => {
    const { id: customerId } = await h.ramp.customers.create({
      externalId: `payee-${randomUUID()}`,
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    await h.control.approveCustomer(customerId!);
    const { id: bankAccountId } = (await h.ramp.bankAccounts.add({
      customerId: customerId!,
      currency: 'GBP',
      bankName: 'Barclays',
      accountNo: '20000012345678',
      swift: 'BARCGB22',
      beneficiaryName: 'Ada Lovelace',
    })) as { id: string };
    await h.control.creditBalance({ currency: 'USDT', amount: '250.5' });
    const reference = `po-${randomUUID()}`;
    const handle = await new PayoutClient(h.client, h.taskQueue).start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '250.5',
      timings: { pollIntervalSeconds: 1, settlementDeadlineSeconds: 120 },
    });
    const paymentId = await until(
      'the payment to be created',
      async () => (await handle.query(payoutStateQuery)).paymentId,
      60_000,
    );
    await h.control.settlePayment(paymentId);
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED' });

    const sums = await until(
      'the amount on the endpoint',
      async () => {
        const lines = await series('rampflow_payout_amount_sum');
        return lines.some((line) => line.includes('currency="USDT"')) ? lines : undefined;
      },
      30_000,
    );
    const sum = sums.find((line) => line.includes('currency="USDT"'))!;
    expect(sum).toContain('workflow_type="payout"');
    expect(Number(sum.split(' ').at(-1))).toBe(250.5);
    const count = (await series('rampflow_payout_amount_count')).find((line) => line.includes('currency="USDT"'))!;
    expect(Number(count.split(' ').at(-1))).toBe(1);
    for (const secret of [reference, paymentId, bankAccountId, customerId!])
      expect(sums.join('\n')).not.toContain(secret);
  }, 120_000);
});
