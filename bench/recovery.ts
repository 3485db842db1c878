/**
 * `npm run bench -- recovery`: what the recovery lookups cost on a big partner (issue 23, item 3).
 * The sandbox holds 100,000 other customers' autoramp flows (or one customer's 100,000 trades),
 * seeded a day old in one call (POST /sandbox/seed) and listed oldest first (its default; the
 * interface does not say). A real worker runs the activity with the options the workflows give it
 * (test/support/workflows/lookups.ts), so its attempts, heartbeats and retries are Temporal's own.
 * Calls are counted from the sandbox's request log; time is from the workflow's start to its result.
 *
 * - a lost onramp create: the flow exists, made just now, and the lookup must find it;
 * - the create never landed: the customer's entry leads elsewhere, and the lookup must prove there is
 *   no flow to this exit (down to the entry's creation time), then create it;
 * - the worst case, no bound: the flow in the middle of 100,000 as new as itself; the walk is read a
 *   slice per attempt, each resuming from the last one's heartbeat;
 * - a deposit's trade among the customer's 100,000 older trades.
 *
 * Before this (README "Recovery lookups"), each lookup walked its list from page 1 in one attempt:
 * 500 pages of onramps here, within one activity's timeout, or never.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { z } from 'zod';
import { createRampActivities } from '../activities';
import { DEFAULT_PAGES_PER_ATTEMPT } from '../activities/list-search';
import { rampflowDataConverter } from '../codec';
import { jsonBody, RampClient } from '../ramp';
import { createSandbox } from '../sandbox';
import type { lookUpOnramp, lookUpTrade } from '../test/support/workflows/lookups';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { SandboxRequestLog } from './support/sandbox-request-log';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal, type BenchTemporal } from './support/temporal';

const PARTNER = { apiKey: 'bench-key', apiSecret: 'bench-secret-0123456789' };
const DAY_SECONDS = 86_400;
const QUIET_BUNDLER = { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error };

interface Measured {
  calls: number;
  listCalls: number;
  attempts: number;
  ms: number;
}

/** One sandbox and one worker for one scenario. */
async function scenario(
  temporal: BenchTemporal,
  workflowBundle: { code: string },
  run: (s: {
    ramp: RampClient;
    seed: (body: object) => Promise<unknown>;
    post: (path: string, body: object) => Promise<{ id: string }>;
    lookUp: (workflow: 'lookUpOnramp' | 'lookUpTrade', arg: unknown, listPath: string) => Promise<Measured>;
  }) => Promise<Measured>,
): Promise<Measured> {
  const requests = new SandboxRequestLog();
  const sandbox = await createSandbox({ partners: [PARTNER], port: 0, logger: requests.logger });
  const ramp = new RampClient({ baseUrl: sandbox.url, ...PARTNER });
  const connection = await NativeConnection.connect({ address: temporal.server.address });
  const taskQueue = `bench-recovery-${randomUUID()}`;
  const worker = await Worker.create({
    connection,
    namespace: temporal.server.namespace,
    taskQueue,
    workflowBundle,
    dataConverter: rampflowDataConverter(BENCH_PAYLOAD_KEYS),
    activities: createRampActivities(ramp),
  });
  const running = worker.run();
  try {
    const post = (path: string, body: object) =>
      ramp.http.request({ method: 'POST', path, body: jsonBody(body) }, z.looseObject({ id: z.string() }));
    return await run({
      ramp,
      seed: (body) => ramp.http.request({ method: 'POST', path: '/sandbox/seed', body: jsonBody(body) }, z.unknown()),
      post,
      async lookUp(workflow, arg, listPath) {
        requests.byPath.clear();
        const started = Date.now();
        const handle = await temporal.client.workflow.start<typeof lookUpOnramp | typeof lookUpTrade>(workflow, {
          taskQueue,
          workflowId: `${workflow}-${randomUUID()}`,
          args: [arg as never],
        });
        await handle.result();
        const ms = Date.now() - started;
        let attempts = 0;
        for (const event of (await handle.fetchHistory()).events ?? [])
          attempts = Math.max(attempts, event.activityTaskStartedEventAttributes?.attempt ?? 0);
        return { calls: requests.apiRequests(), listCalls: requests.byPath.get(listPath) ?? 0, attempts, ms };
      },
    });
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await ramp.close();
    await sandbox.close();
  }
}

/** An approved customer with a USDT wallet. */
async function customerWithWallet(s: {
  ramp: RampClient;
  post: (path: string, body: object) => Promise<{ id: string }>;
}) {
  const { id } = await s.ramp.customers.create({
    externalId: `bench-${randomUUID()}`,
    realName: 'Bench Customer',
    email: 'bench@example.com',
  });
  await s.post('/sandbox/customer/approve', { id: id! });
  const wallet = await s.post('/sandbox/crypto-address/create', {
    customerId: id!,
    currency: 'USDT',
    network: 'ETH',
    address: '0x52908400098527886E0F7030069857D2E4169EE7',
  });
  return { customerId: id!, cryptoAddressId: wallet.id };
}

export async function benchRecovery(options: BenchOptions): Promise<Figure[]> {
  const records = options.quick ? 10_000 : 100_000;
  const size = records.toLocaleString('en-US');
  try {
    // Continuations log a warning per slice; keep this process's runtime quiet (other benchmarks run workers in child processes).
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by an earlier benchmark in this process.
  }
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: join(__dirname, '..', 'test', 'support', 'workflows', 'lookups.ts'),
    logger: QUIET_BUNDLER,
  });
  const temporal = await startBenchTemporal();
  try {
    options.progress(`a lost onramp create among ${size} day-old flows`);
    const found = await scenario(temporal, workflowBundle, async (s) => {
      await s.seed({ flows: records, ageSeconds: DAY_SECONDS });
      const { customerId, cryptoAddressId } = await customerWithWallet(s);
      await s.ramp.autorampFlows.createOnramp({ from: { customerId, currency: 'EUR' }, to: cryptoAddressId });
      return s.lookUp('lookUpOnramp', { customerId, currency: 'EUR', cryptoAddressId }, '/autoramp-flow/list');
    });
    options.progress(`an onramp create that never landed, among ${size} day-old flows`);
    const absent = await scenario(temporal, workflowBundle, async (s) => {
      await s.seed({ flows: records, ageSeconds: DAY_SECONDS });
      const { customerId, cryptoAddressId } = await customerWithWallet(s);
      await s.ramp.autorampFlows.createOnramp({ from: { customerId, currency: 'EUR' }, to: cryptoAddressId });
      const other = await s.post('/sandbox/crypto-address/create', {
        customerId,
        currency: 'USDC',
        network: 'ETH',
        address: '0x52908400098527886E0F7030069857D2E4169EE8',
      });
      return s.lookUp(
        'lookUpOnramp',
        { customerId, currency: 'EUR', cryptoAddressId: other.id },
        '/autoramp-flow/list',
      );
    });
    options.progress(`the worst case: an onramp in the middle of ${size} flows as new as itself`);
    const unbounded = await scenario(temporal, workflowBundle, async (s) => {
      await s.seed({ flows: records / 2 });
      const { customerId, cryptoAddressId } = await customerWithWallet(s);
      await s.ramp.autorampFlows.createOnramp({ from: { customerId, currency: 'EUR' }, to: cryptoAddressId });
      await s.seed({ flows: records / 2 });
      return s.lookUp('lookUpOnramp', { customerId, currency: 'EUR', cryptoAddressId }, '/autoramp-flow/list');
    });
    options.progress(`a deposit's trade among the customer's ${size} day-old trades`);
    const trade = await scenario(temporal, workflowBundle, async (s) => {
      const { customerId, cryptoAddressId } = await customerWithWallet(s);
      await s.seed({ trades: records, tradesCustomerId: customerId, ageSeconds: DAY_SECONDS });
      const { id: flowId } = await s.ramp.autorampFlows.createOnramp({
        from: { customerId, currency: 'EUR' },
        to: cryptoAddressId,
      });
      const entry = (await s.ramp.autorampFlows.detail({ id: flowId })).from;
      await s.post('/sandbox/virtual-account/approve', { id: entry });
      const deposit = await s.post('/sandbox/deposit/simulate', {
        virtualAccountId: entry,
        amount: '100.00',
        currency: 'EUR',
        sender: { accountNumber: '12345678' },
      });
      await s.post('/sandbox/deposit/confirm', { id: deposit.id });
      return s.lookUp('lookUpTrade', { depositId: deposit.id, customerId }, '/trade/list');
    });

    const onrampPages = Math.ceil(records / 2 / 100);
    const method = `sandbox listing oldest first, a real worker running the activity with the workflow's options; calls from the sandbox's request log; the old walk from page 1 read up to ${onrampPages.toLocaleString('en-US')} pages of onramps (${Math.ceil(records / 100).toLocaleString('en-US')} of trades) in one attempt`;
    const row = (name: string, measured: Measured, target: number, what: string): Figure[] => [
      {
        name: `recovery: ${name}: service calls`,
        value: measured.calls,
        unit: 'calls',
        target: `<= ${target}`,
        met: measured.calls <= target,
        method: `${what}; ${measured.listCalls} list pages, ${measured.attempts} attempt(s); ${method}`,
      },
      {
        name: `recovery: ${name}: time`,
        value: measured.ms,
        unit: 'ms',
        target: '<= 2,000',
        met: measured.ms <= 2_000,
        method: `workflow start to result, ${measured.attempts} attempt(s); ${method}`,
      },
    ];
    return [
      ...row(`lost onramp among ${size} flows`, found, 5, "customer's virtual accounts (1), the flow list's two ends"),
      ...row(
        `onramp never created, ${size} flows`,
        absent,
        8,
        "virtual accounts, the list's ends and the page past the entry's creation time, the create and its read-back",
      ),
      ...row(
        `deposit's trade among ${size} trades`,
        trade,
        6,
        "the trade list's two ends, the trade's detail (and the deposit's, only if the ends do not settle it)",
      ),
      {
        name: `recovery: worst case (no bound), ${size} flows: pages per attempt`,
        value: unbounded.listCalls / Math.max(1, unbounded.attempts),
        unit: 'pages',
        target: `<= ${DEFAULT_PAGES_PER_ATTEMPT}`,
        met: unbounded.listCalls <= unbounded.attempts * DEFAULT_PAGES_PER_ATTEMPT,
        method: `the flow in the middle of onramps as new as itself: ${unbounded.listCalls} list pages over ${unbounded.attempts} attempts in ${(unbounded.ms / 1000).toFixed(1)} s, each attempt resuming from the last one's heartbeat (no page read twice); ${method}`,
      },
    ];
  } finally {
    await temporal.stop();
  }
}
