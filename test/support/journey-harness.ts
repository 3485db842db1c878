/**
 * Everything a journey test needs: the shared dev server, a sandbox, and a rampflow worker running
 * in this process on a task queue of its own.
 */
import { randomUUID } from 'node:crypto';
import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import { dataConverterFromEnv } from '../../codec';
import { createRampflowWorker, type RampflowWorker, type RampflowWorkerOptions } from '../../workers/worker';
import {
  type DepositState,
  depositStateQuery,
  depositWorkflowId,
  type JourneyState,
  journeyStateQuery,
  journeyWorkflowId,
} from '../../workflows/common/messages';
import { type DepositTimings, JourneyInputSchema, type JourneyRequest } from '../../workflows/schemas';
import type { customerJourney, reconcileWithService } from '../../workflows';
import type { ReconcileResult } from '../../workflows/reconcile/types';
import type { RampAssumptionOverrides } from '../../ramp';
import type { SandboxOptions } from '../../sandbox';
import { startTestSandbox, type TestSandbox } from './sandbox';
import { FAST_DEPOSIT_TIMINGS, FAST_TIMINGS, registerTestExits, TEST_OFFRAMP, TEST_ONRAMP } from './test-journeys';
import { connectClient, connectWorker, uniqueTaskQueue } from './temporal';

// The accounts and timings live apart from the harness so suites with their own servers (test/faults) share them.
export {
  FAST_DEPOSIT_TIMINGS,
  FAST_TIMINGS,
  registerTestExits,
  TEST_AUD_SOURCE,
  TEST_OFFRAMP,
  TEST_ONRAMP,
  TEST_WALLET,
} from './test-journeys';

export interface JourneyHarness extends TestSandbox {
  client: Client;
  taskQueue: string;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  startJourney(
    request: Omit<JourneyRequest, 'customer'> & { customer?: Partial<JourneyRequest['customer']> },
  ): Promise<WorkflowHandle<typeof customerJourney>>;
  /** Workflow IDs a visibility query finds, once it finds any (visibility is eventually consistent). */
  listWorkflowIds(query: string, timeoutMs?: number): Promise<string[]>;
  /**
   * Runs one reconciliation pass, as the production schedule does: it starts the workflows of deposits
   * no event announced. The harness has no webhook receiver, so this is how its deposits are found.
   */
  reconcile(): Promise<ReconcileResult>;
  /** Queries the journey until `accept` holds; fails with the last state seen after `timeoutMs`. */
  waitForJourney(
    handle: WorkflowHandle,
    accept: (state: JourneyState) => boolean,
    timeoutMs?: number,
  ): Promise<JourneyState>;
  /**
   * Queries `deposit/<depositId>` until `accept` holds (waiting for the workflow to exist first). The
   * journey hears of a deposit only when it opens, needs someone and ends; the steps between are here.
   */
  waitForDeposit(
    depositId: string,
    accept: (state: DepositState) => boolean,
    timeoutMs?: number,
  ): Promise<DepositState>;
  close(): Promise<void>;
}

export interface HarnessOptions extends Pick<
  RampflowWorkerOptions,
  'outcomeUnknownRetryDelayMs' | 'refusedCreateParkAfterMs' | 'deploymentVersion' | 'partnerEvents'
> {
  /** The timings of the deposit workflows the worker starts (FAST_DEPOSIT_TIMINGS unless given). */
  depositTimings?: Partial<DepositTimings>;
  /** The workflow bundle the worker runs (the run's bundle of the current code unless given). */
  workflowBundlePath?: string;
  /** The client's and the worker's data converter (the run's encrypting one unless given). */
  dataConverter?: DataConverter;
  /** What the worker's client is told of the service, as RAMP_ASSUMPTIONS_FILE would (ramp/assumptions-file.ts). */
  rampAssumptions?: RampAssumptionOverrides;
}

export async function startJourneyHarness(
  sandboxOptions: Partial<SandboxOptions> = {},
  options: HarnessOptions = {},
): Promise<JourneyHarness> {
  // The AUD whitelist registers a second after approval instead of the sandbox's 10 s.
  const sandbox = await startTestSandbox({ audWhitelistDelaySeconds: 1, ...sandboxOptions }, options.rampAssumptions);
  const { client, close: closeClient } = await connectClient(options.dataConverter);
  const taskQueue = uniqueTaskQueue('journey');
  let running: { worker: RampflowWorker; connection: NativeConnection; done: Promise<void> } | undefined;

  const harness: JourneyHarness = {
    ...sandbox,
    client,
    taskQueue,
    async startWorker() {
      const connection = await connectWorker();
      const { workflowBundlePath, dataConverter, rampAssumptions: _assumptions, ...workerOptions } = options;
      const worker = await createRampflowWorker({
        connection,
        namespace: 'default',
        taskQueue,
        ramp: sandbox.ramp,
        dataConverter: dataConverter ?? dataConverterFromEnv(),
        workflowBundle: { codePath: workflowBundlePath ?? inject('workflowBundlePath') },
        shutdownGraceTime: '2 seconds',
        ...workerOptions,
        depositTimings: options.depositTimings ?? FAST_DEPOSIT_TIMINGS,
      });
      running = { worker, connection, done: worker.run() };
    },
    async stopWorker() {
      if (!running) return;
      running.worker.shutdown();
      await running.done;
      await running.connection.close();
      running = undefined;
    },
    async startJourney(request) {
      const externalId = request.customer?.externalId ?? `user-${randomUUID()}`;
      const input = JourneyInputSchema.parse({
        ...request,
        customer: { realName: 'Ada Lovelace', email: 'ada@example.com', ...request.customer, externalId },
        timings: { ...FAST_TIMINGS, ...request.timings },
      });
      return client.workflow.start<typeof customerJourney>('customerJourney', {
        taskQueue,
        workflowId: journeyWorkflowId(externalId),
        args: [input],
      });
    },
    async listWorkflowIds(query, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ids: string[] = [];
        for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
        if (ids.length > 0 || Date.now() > deadline) return ids;
        await new Promise((wake) => setTimeout(wake, 200));
      }
    },
    async reconcile() {
      return client.workflow.execute<typeof reconcileWithService>('reconcileWithService', {
        taskQueue,
        workflowId: `reconcile-${randomUUID()}`,
        args: [{}],
      });
    },
    async waitForJourney(handle, accept, timeoutMs = 60_000) {
      return queryUntil('journey', () => handle.query(journeyStateQuery), accept, timeoutMs);
    },
    async waitForDeposit(depositId, accept, timeoutMs = 60_000) {
      const handle = client.workflow.getHandle(depositWorkflowId(depositId));
      const notStartedYet = (error: unknown) =>
        error instanceof WorkflowNotFoundError ? undefined : Promise.reject(error);
      return queryUntil('deposit', () => handle.query(depositStateQuery).catch(notStartedYet), accept, timeoutMs);
    },
    async close() {
      await harness.stopWorker();
      await closeClient();
      await sandbox.close();
    },
  };
  await harness.startWorker();
  return harness;
}

/**
 * Starts a journey with the test ramps and plays the service's part by hand (KYC approval, account
 * approvals) until the journey is ACTIVE.
 */
export async function startActiveJourney(
  h: JourneyHarness,
  request: Parameters<JourneyHarness['startJourney']>[0] = {},
) {
  const handle = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP, ...request });
  const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
  await registerTestExits(h.control, kyc.customer.id!);
  await h.control.approveCustomer(kyc.customer.id!);
  const accounts = await h.waitForJourney(
    handle,
    (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
  );
  await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
  await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
  const state = await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
  return {
    handle,
    state,
    virtualAccountId: state.onramp!.virtualAccount!.id,
    depositAddressId: state.offramp!.depositAddress!.id,
  };
}

/** Asks until `accept` holds; fails with the last answer after `timeoutMs`. `ask` answers undefined while there is nothing to ask yet. */
async function queryUntil<State>(
  what: string,
  ask: () => Promise<State | undefined>,
  accept: (state: State) => boolean,
  timeoutMs: number,
): Promise<State> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await ask();
    if (last !== undefined && accept(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`${what} never reached the expected state; last state:\n${JSON.stringify(last, null, 2)}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}
