/**
 * The recovery lookups that search a list without a filter (issue 23, item 3): the onramp a create
 * may have made (the flow list has no customer filter) and a deposit's trade. Against the sandbox
 * over loopback with many other records seeded, through a real worker and the options the real
 * workflows give them: they find the record from the list's newest end with a handful of calls, stop
 * at the creation-time bound, and, where no bound helps, read a slice per attempt and resume from the
 * heartbeat instead of starting over.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRampActivities } from '../../activities';
import { DEFAULT_PAGES_PER_ATTEMPT } from '../../activities/list-search';
import { dataConverterFromEnv } from '../../codec';
import { RampClient } from '../../ramp';
import type { SandboxOptions } from '../../sandbox';
import { connectClient, connectWorker, uniqueTaskQueue } from '../support/temporal';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';
import type { lookUpOnramp, lookUpTrade } from '../support/workflows/lookups';

const QUIET_BUNDLER = { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error };
const DAY_SECONDS = 86_400;

let client: Awaited<ReturnType<typeof connectClient>>;
let workflowBundle: { code: string };
beforeAll(async () => {
  client = await connectClient();
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: join(__dirname, '..', 'support', 'workflows', 'lookups.ts'),
    logger: QUIET_BUNDLER,
  });
});
afterAll(async () => {
  await client?.close();
});

/** A sandbox, and a worker whose client counts the calls it makes per path. */
async function startLookups(options: Partial<SandboxOptions> = {}) {
  const sandbox: TestSandbox = await startTestSandbox(options);
  const calls = new Map<string, number>();
  const workerRamp = new RampClient({
    baseUrl: sandbox.sandbox.url,
    ...TEST_PARTNER,
    onCanonicalString: (canonical) => {
      const path = canonical.split('\n')[2]!;
      calls.set(path, (calls.get(path) ?? 0) + 1);
    },
  });
  const taskQueue = uniqueTaskQueue('list-search');
  const worker = await Worker.create({
    connection: await connectWorker(),
    taskQueue,
    workflowBundle,
    dataConverter: dataConverterFromEnv(),
    activities: createRampActivities(workerRamp),
  });
  const running = worker.run();
  /** Runs a lookup workflow; returns its result, the calls it made per path, and the attempts its activity took. */
  async function lookUp<R>(
    workflow: 'lookUpOnramp' | 'lookUpTrade',
    arg: unknown,
  ): Promise<{ result: R; calls: Map<string, number>; attempts: number }> {
    calls.clear();
    const handle = await client.client.workflow.start<typeof lookUpOnramp | typeof lookUpTrade>(workflow, {
      taskQueue,
      workflowId: `${workflow}-${randomUUID()}`,
      args: [arg as never],
    });
    const result = (await handle.result()) as R;
    let attempts = 0;
    for (const event of (await handle.fetchHistory()).events ?? []) {
      if (event.activityTaskStartedEventAttributes)
        attempts = Math.max(attempts, event.activityTaskStartedEventAttributes.attempt ?? 0);
    }
    return { result, calls: new Map(calls), attempts };
  }
  return {
    ...sandbox,
    lookUp,
    async close() {
      worker.shutdown();
      await running;
      await workerRamp.close();
      await sandbox.close();
    },
  };
}

/** An approved customer with a USDT wallet, ready for an onramp. */
async function customerWithWallet(s: TestSandbox) {
  const { id } = await s.ramp.customers.create({
    externalId: `lookup-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  await s.control.approveCustomer(id!);
  const wallet = await s.control.registerCryptoAddress({
    customerId: id!,
    currency: 'USDT',
    network: 'ETH',
    address: '0x52908400098527886E0F7030069857D2E4169EE7',
  });
  return { customerId: id!, cryptoAddressId: wallet.id };
}

describe.each(['oldest-first', 'newest-first'] as const)(
  'finding an onramp among 20,000 older flows (the sandbox listing %s)',
  (listOrder) => {
    let s: Awaited<ReturnType<typeof startLookups>>;
    beforeAll(async () => {
      s = await startLookups({ listOrder });
    });
    afterAll(async () => {
      await s?.close();
    });

    it('reads the two ends of the list, not its 200 pages', async () => {
      // Other customers' flows, a day old; then a create whose answer was lost made this customer's.
      await s.control.seed({ flows: 20_000, ageSeconds: DAY_SECONDS });
      const { customerId, cryptoAddressId } = await customerWithWallet(s);
      const { id: flowId } = await s.ramp.autorampFlows.createOnramp({
        from: { customerId, currency: 'EUR' },
        to: cryptoAddressId,
      });

      const { result, calls, attempts } = await s.lookUp<{ flowId: string }>('lookUpOnramp', {
        customerId,
        currency: 'EUR',
        cryptoAddressId,
      });
      expect(result.flowId).toBe(flowId);
      expect(calls.get('/autoramp-flow/list')).toBeLessThanOrEqual(2);
      expect(calls.has('/autoramp-flow/onramp')).toBe(false);
      expect(attempts).toBe(1);
    });

    it("stops at the entry's creation time when the customer's entry has no flow to this exit", async () => {
      const { customerId, cryptoAddressId } = await customerWithWallet(s);
      const other = await s.control.registerCryptoAddress({
        customerId,
        currency: 'USDC',
        network: 'ETH',
        address: '0x52908400098527886E0F7030069857D2E4169EE8',
      });
      // The customer's EUR entry leads elsewhere: the lookup must prove there is no flow to `other`, then create it.
      await s.ramp.autorampFlows.createOnramp({ from: { customerId, currency: 'EUR' }, to: cryptoAddressId });
      await s.control.seed({ flows: 1_000 }); // newer than the entry: read, the day-old ones are not

      const { result, calls } = await s.lookUp<{ flowId: string }>('lookUpOnramp', {
        customerId,
        currency: 'EUR',
        cryptoAddressId: other.id,
      });
      expect(result.flowId).toBeTruthy();
      expect(calls.get('/autoramp-flow/onramp')).toBe(1);
      // 10,000 day-old onramps and about 500 new ones: the two ends, the new ones' pages and the one where the old begin.
      expect(calls.get('/autoramp-flow/list')).toBeLessThanOrEqual(14);
    });
  },
);

describe('a lookup no creation time can bound', () => {
  let s: Awaited<ReturnType<typeof startLookups>>;
  beforeAll(async () => {
    s = await startLookups();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("reads a slice of pages per attempt and resumes from the heartbeat (the journey's own options for ensureOnramp)", async () => {
    // The flow sits in the middle of flows as new as itself, 20 pages from either end of the onramps.
    await s.control.seed({ flows: 4_000 });
    const { customerId, cryptoAddressId } = await customerWithWallet(s);
    const { id: flowId } = await s.ramp.autorampFlows.createOnramp({
      from: { customerId, currency: 'EUR' },
      to: cryptoAddressId,
    });
    await s.control.seed({ flows: 4_000 });

    const { result, calls, attempts } = await s.lookUp<{ flowId: string }>('lookUpOnramp', {
      customerId,
      currency: 'EUR',
      cryptoAddressId,
    });
    expect(result.flowId).toBe(flowId);
    expect(attempts).toBeGreaterThanOrEqual(2);
    // Onramps are half of them: pages 1 and 41, then 40 down to 21; each read once, none again by a later attempt.
    const pages = calls.get('/autoramp-flow/list')!;
    expect(pages).toBeGreaterThan(DEFAULT_PAGES_PER_ATTEMPT);
    expect(pages).toBeLessThanOrEqual(23);
  });
});

describe("finding a deposit's trade among a long history", () => {
  let s: Awaited<ReturnType<typeof startLookups>>;
  beforeAll(async () => {
    // Oldest first, so the customer's newest trade is the last entry of its list (confirmedDeposit).
    s = await startLookups({ listOrder: 'oldest-first' });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** A confirmed EUR deposit on the customer's onramp, which makes its trade. */
  async function confirmedDeposit(customerId: string, cryptoAddressId: string) {
    const { id: flowId } = await s.ramp.autorampFlows.createOnramp({
      from: { customerId, currency: 'EUR' },
      to: cryptoAddressId,
    });
    const flow = await s.ramp.autorampFlows.detail({ id: flowId });
    await s.control.approveVirtualAccount(flow.from);
    const deposit = await s.control.simulateFiatDeposit({
      virtualAccountId: flow.from,
      amount: '100.00',
      currency: 'EUR',
      sender: { accountNumber: '12345678' },
    });
    await s.control.confirmDeposit(deposit.id);
    // The customer's newest trade, last on the sandbox's oldest-first list.
    const { total } = await s.ramp.trades.list({ customerId, pageSize: 1 });
    const [trade] = (await s.ramp.trades.list({ customerId, pageNum: total, pageSize: 1 })).list;
    return { depositId: deposit.id, tradeId: trade!.id };
  }

  it("finds it at the newest end, and with no trade yet stops at the deposit's confirmation", async () => {
    const { customerId, cryptoAddressId } = await customerWithWallet(s);
    // Five thousand older trades of the same customer (50 pages), then this deposit's.
    await s.control.seed({ trades: 5_000, tradesCustomerId: customerId, ageSeconds: DAY_SECONDS });
    const { depositId, tradeId } = await confirmedDeposit(customerId, cryptoAddressId);

    const found = await s.lookUp<string | null>('lookUpTrade', { depositId, customerId });
    expect(found.result).toBe(tradeId);
    expect(found.calls.get('/trade/list')).toBeLessThanOrEqual(2);
    expect(found.attempts).toBe(1);

    // A deposit confirmed just now whose trade the service has not made: no trade of it can be older.
    const late = await s.ramp.autorampFlows.createOnramp({
      from: { customerId, currency: 'USD' },
      to: cryptoAddressId,
    });
    const entry = (await s.ramp.autorampFlows.detail({ id: late.id })).from;
    await s.control.approveVirtualAccount(entry);
    await s.ramp.autorampFlows.delete({ id: late.id }); // no flow: a confirmed deposit makes no trade
    const deposit = await s.control.simulateFiatDeposit({
      virtualAccountId: entry,
      amount: '5.00',
      currency: 'USD',
      sender: { accountNumber: '12345678' },
    });
    await s.control.confirmDeposit(deposit.id);
    const missing = await s.lookUp<string | null>('lookUpTrade', { depositId: deposit.id, customerId });
    expect(missing.result).toBeNull();
    // The two ends (the newest page holds only the trade above), and the page where the day-old ones begin.
    expect(missing.calls.get('/trade/list')).toBeLessThanOrEqual(3);
    expect(missing.calls.get('/deposit/detail')).toBe(1);
  });

  it('where the bound does not help (trades as new as it), reads a slice per attempt, each resuming from the heartbeat', async () => {
    const { customerId, cryptoAddressId } = await customerWithWallet(s);
    // The trade sits in the middle of 5,001 of the customer's trades as new as itself: page 26 of 51.
    await s.control.seed({ trades: 2_500, tradesCustomerId: customerId });
    const { depositId, tradeId } = await confirmedDeposit(customerId, cryptoAddressId);
    await s.control.seed({ trades: 2_500, tradesCustomerId: customerId });

    const { result, calls, attempts } = await s.lookUp<string | null>('lookUpTrade', { depositId, customerId });
    expect(result).toBe(tradeId);
    expect(attempts).toBeGreaterThanOrEqual(2);
    // Pages 1 and 51, then 50 down to 26: each read once, none again by a later attempt.
    expect(calls.get('/trade/list')).toBeGreaterThan(DEFAULT_PAGES_PER_ATTEMPT);
    expect(calls.get('/trade/list')).toBeLessThanOrEqual(28);
  });
});
