/**
 * The client library against the shared dev server, with a real rampflow worker and the sandbox:
 * what a partner backend and an operator's tooling do with it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRampflowClient,
  RampflowInputError,
  RampflowNotFoundError,
  RampflowUpdateRefusedError,
  SIGNUP_GRACE_MS,
  type JourneyRequest,
  type RampflowClient,
} from '../../client';
import {
  FAST_TIMINGS,
  startActiveJourney,
  startJourneyHarness,
  TEST_OFFRAMP,
  type JourneyHarness,
} from '../support/journey-harness';
import { temporalAddress, testPayloadKeys, uniqueTaskQueue } from '../support/temporal';

let h: JourneyHarness;
let rampflow: RampflowClient;
beforeAll(async () => {
  h = await startJourneyHarness();
  rampflow = await createRampflowClient({
    address: temporalAddress(),
    taskQueue: h.taskQueue,
    payloadKeys: testPayloadKeys(),
  });
});
afterAll(async () => {
  await rampflow.close();
  await h.close();
});

function signup(overrides: Partial<JourneyRequest> = {}): JourneyRequest {
  return {
    customer: { externalId: `user-${randomUUID()}`, realName: 'Grace Hopper', email: 'grace@example.com' },
    offramp: TEST_OFFRAMP,
    timings: FAST_TIMINGS,
    ...overrides,
  };
}

/** Visibility is eventually consistent: asks again until `accept` holds. */
async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`never accepted; last value:\n${JSON.stringify(value, null, 2)}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

const journeyRuns = (externalId: string) =>
  h.client.workflow.count(`WorkflowId = 'customer/${externalId}'`).then((result) => result.count);

describe('startJourney', () => {
  it('refuses bad input with an error that names the field, and starts nothing', async () => {
    const request = signup();
    request.customer.email = 'not-an-email';
    const error = await rampflow.startJourney(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RampflowInputError);
    expect((error as Error).message).toBe('customer.email: Invalid email address');
    await expect(rampflow.getJourney(request.customer.externalId)).rejects.toBeInstanceOf(RampflowNotFoundError);
  });

  it('names every bad field, nested ones with their path', async () => {
    const error = await rampflow
      .startJourney({
        customer: { externalId: 'has space', realName: '', email: 'a@example.com' },
        onramp: { currency: 'usd', cryptoAddress: { address: '0xabc' } },
      })
      .catch((caught: unknown) => caught);
    expect((error as RampflowInputError).issues).toEqual([
      'customer.externalId: letters, digits and . _ : @ - only, at most 128',
      'customer.realName: Too small: expected string to have >=1 characters',
      'onramp.currency: a fiat currency code such as AUD',
    ]);
  });

  it('returns the running journey on a second call, never a second journey or an error', async () => {
    const request = signup();
    const first = await rampflow.startJourney(request);
    // The second call carries different details: the journey keeps its own input.
    const second = await rampflow.startJourney({
      ...request,
      customer: { ...request.customer, realName: 'Someone Else' },
    });
    expect(second.workflowId).toBe(first.workflowId);
    expect(second.workflowId).toBe(`customer/${request.customer.externalId}`);
    expect((await second.describe()).runId).toBe((await first.describe()).runId);
    expect(await journeyRuns(request.customer.externalId)).toBe(1);
    await rampflow.closeCustomer(request.customer.externalId, 'test over');
  });

  it('returns an ended journey as it is instead of starting it again', async () => {
    const request = signup();
    const first = await rampflow.startJourney(request);
    await h.waitForJourney(first, (s) => s.stage === 'AWAITING_KYC');
    await rampflow.closeCustomer(request.customer.externalId, 'customer left');
    const ended = await first.result();
    expect(ended).toEqual({ stage: 'CLOSED', reason: 'customer left' });

    const again = await rampflow.startJourney(request);
    expect(await again.result()).toEqual(ended);
    expect((await again.describe()).status.name).toBe('COMPLETED');
    expect(await journeyRuns(request.customer.externalId)).toBe(1);
  });

  it('indexes the journey by externalId and stage from the start', async () => {
    const request = signup();
    const handle = await rampflow.startJourney(request);
    const { typedSearchAttributes } = await handle.describe();
    expect(typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(
      expect.arrayContaining([['RampExternalId', request.customer.externalId]]),
    );
    await rampflow.closeCustomer(request.customer.externalId);
  });
});

describe('signUp', () => {
  it('starts the journey and answers its stage and KYC link in one round trip; again, at once, from the running journey', async () => {
    const request = signup();
    const first = await rampflow.signUp(request);
    expect(first.handle.workflowId).toBe(`customer/${request.customer.externalId}`);
    expect(first.kycLink).toMatch(/^https?:\/\//);
    expect(first.stage).toMatch(/^(CREATING_CUSTOMER|AWAITING_KYC)$/);
    expect(first.waitingFor).toEqual(expect.any(String));
    // The link is the service's own record, which the journey's state shows too.
    const state = await h.waitForJourney(first.handle, (s) => s.stage === 'AWAITING_KYC');
    expect(state.customer.kycLink).toBe(first.kycLink);

    const startedAt = Date.now();
    const again = await rampflow.signUp(
      { ...request, customer: { ...request.customer, realName: 'Someone Else' } },
      { waitSeconds: 0 },
    );
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(again).toMatchObject({ stage: 'AWAITING_KYC', kycLink: first.kycLink });
    expect((await again.handle.describe()).runId).toBe((await first.handle.describe()).runId);
    expect(await journeyRuns(request.customer.externalId)).toBe(1);

    // Ended: returned as it is, with its stage and no link, never started again.
    await rampflow.closeCustomer(request.customer.externalId, 'test over');
    await first.handle.result();
    const ended = await rampflow.signUp(request);
    expect(ended.stage).toBe('CLOSED');
    expect(ended.kycLink).toBeUndefined();
    expect(await ended.handle.result()).toEqual({ stage: 'CLOSED', reason: 'test over' });
    expect(await journeyRuns(request.customer.externalId)).toBe(1);
  });

  it('answers without the link within its bound when no worker runs the journey, which it starts', async () => {
    const idle = await createRampflowClient({
      address: temporalAddress(),
      taskQueue: uniqueTaskQueue('no-worker'),
      payloadKeys: testPayloadKeys(),
    });
    try {
      const request = signup();
      const startedAt = Date.now();
      const answer = await idle.signUp(request, { waitSeconds: 1 });
      expect(Date.now() - startedAt).toBeLessThan(1_000 + SIGNUP_GRACE_MS + 2_000);
      expect(answer.kycLink).toBeUndefined();
      expect(answer.stage).toBe('CREATING_CUSTOMER');
      expect((await answer.handle.describe()).status.name).toBe('RUNNING');
      await answer.handle.terminate('test over');
    } finally {
      await idle.close();
    }
  });

  it('refuses a bad request or wait before anything reaches Temporal', async () => {
    const request = signup();
    await expect(rampflow.signUp(request, { waitSeconds: 31 })).rejects.toThrow(/^waitSeconds: Too big/);
    await expect(
      rampflow.signUp({ ...request, customer: { ...request.customer, email: 'nope' } }),
    ).rejects.toBeInstanceOf(RampflowInputError);
    await expect(rampflow.getJourney(request.customer.externalId)).rejects.toBeInstanceOf(RampflowNotFoundError);
  });
});

describe('reading journeys', () => {
  it('getJourney returns the state query, kycLink included', async () => {
    const request = signup();
    await rampflow.startJourney(request);
    const state = await eventually(
      () => rampflow.getJourney(request.customer.externalId),
      (s) => s.stage === 'AWAITING_KYC',
    );
    expect(state).toMatchObject({
      externalId: request.customer.externalId,
      offramp: { currency: 'USDT', network: 'ETH' },
    });
    expect(state.customer.kycLink).toMatch(/^https?:\/\//);
    await rampflow.closeCustomer(request.customer.externalId);
  });

  it('getJourney of an unknown externalId says it is not found', async () => {
    await expect(rampflow.getJourney('nobody-here')).rejects.toThrow('journey nobody-here not found');
  });

  it('listJourneys finds journeys by stage, each once', async () => {
    const parked = signup({ timings: { ...FAST_TIMINGS, kycDeadlineSeconds: 1 } });
    const waiting = signup();
    await rampflow.startJourney(parked);
    await rampflow.startJourney(waiting);
    const stuck = await eventually(
      () => rampflow.listJourneys({ stage: 'NEEDS_ATTENTION' }),
      (list) => list.some((journey) => journey.externalId === parked.customer.externalId),
    );
    expect(stuck.find((journey) => journey.externalId === parked.customer.externalId)).toMatchObject({
      workflowId: `customer/${parked.customer.externalId}`,
      stage: 'NEEDS_ATTENTION',
      status: 'RUNNING',
      customerId: expect.any(String),
    });
    expect(stuck.every((journey) => journey.stage === 'NEEDS_ATTENTION')).toBe(true);
    const all = await eventually(
      () => rampflow.listJourneys(),
      (list) => list.some((journey) => journey.externalId === waiting.customer.externalId),
    );
    expect(all.filter((journey) => journey.externalId === parked.customer.externalId)).toHaveLength(1);
    expect(await rampflow.listJourneys({ limit: 1 })).toHaveLength(1);
    await rampflow.cancel(parked.customer.externalId);
    await rampflow.closeCustomer(waiting.customer.externalId);
  });

  it('refuses a stage that does not exist', async () => {
    await expect(rampflow.listJourneys({ stage: 'STUCK' as never })).rejects.toThrow(/^stage: Invalid option/);
  });
});

describe('operator updates', () => {
  it('retry resumes a parked journey with corrected input; retry when not parked is refused in one line', async () => {
    // Polls an hour apart, so the parked journey does not find the approval by itself before the retry.
    const request = signup({ timings: { ...FAST_TIMINGS, kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 } });
    const { externalId } = request.customer;
    const handle = await rampflow.startJourney(request);
    const parked = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({ stage: 'AWAITING_KYC', errorType: 'Deadline' });

    await expect(
      rampflow.retry(externalId, { customer: { ...request.customer, externalId: 'someone-else' } }),
    ).rejects.toThrow(`correctedInput.customer.externalId: must stay ${externalId}, the journey's own`);
    await expect(rampflow.retry(externalId, { offRamp: TEST_OFFRAMP } as never)).rejects.toThrow(
      /^correctedInput: Unrecognized key: "offRamp"/,
    );

    await h.control.approveCustomer(parked.customer.id!);
    await h.control.registerBankAccount({
      customerId: parked.customer.id!,
      currency: 'AUD',
      bankName: 'Test Bank',
      accountNo: '111222333',
      swift: 'TESTAU2S',
    });
    const corrected = { ...TEST_OFFRAMP, bankAccount: { accountNo: '111222333' } };
    expect(await rampflow.retry(externalId, { offramp: corrected })).toEqual({ resumed: 'AWAITING_KYC' });
    // The retry asks the service at once, and the corrected bank account is the one the journey finds.
    const found = await h.waitForJourney(handle, (s) => s.offramp?.bankAccountId !== undefined);
    expect((await h.ramp.bankAccounts.detail({ id: found.offramp!.bankAccountId! })).accountNo).toBe('111222333');

    const refused = await rampflow.retry(externalId).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(RampflowUpdateRefusedError);
    expect((refused as Error).message).toBe(
      `retry refused by journey ${externalId}: nothing to retry: the workflow is not in NEEDS_ATTENTION`,
    );
    await rampflow.closeCustomer(externalId, 'test over');
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'test over' });
  });

  it('cancel ends a parked journey with the reason', async () => {
    const request = signup({ timings: { ...FAST_TIMINGS, kycDeadlineSeconds: 1 } });
    const handle = await rampflow.startJourney(request);
    await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(await rampflow.cancel(request.customer.externalId, 'duplicate signup')).toEqual({ cancelled: true });
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'duplicate signup' });
  });

  it('an update to an ended journey is refused in one line', async () => {
    const request = signup();
    const handle = await rampflow.startJourney(request);
    await rampflow.closeCustomer(request.customer.externalId);
    await handle.result();
    await expect(rampflow.closeCustomer(request.customer.externalId)).rejects.toThrow(
      `closeCustomer refused by journey ${request.customer.externalId}: it has already ended (COMPLETED)`,
    );
  });
});

describe('deposits', () => {
  it("lists a customer's deposits, reads one, and submits the attachment the service asked for", async () => {
    const externalId = `user-${randomUUID()}`;
    const { handle, virtualAccountId } = await startActiveJourney(h, { customer: { externalId } });
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '75.00',
      currency: 'AUD',
      sender: { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' },
    });
    await h.reconcile();
    await h.waitForJourney(handle, (s) => s.deposits.open.some((d) => d.depositId === deposit.id));
    const attachment = {
      fileName: 'payslip.pdf',
      contentType: 'application/pdf',
      content: Buffer.from('%PDF-1.4 payslip'),
    };

    const early = await rampflow.submitAttachment(deposit.id, attachment).catch((caught: unknown) => caught);
    expect((early as Error).message).toMatch(
      new RegExp(`^submitAttachment refused by deposit ${deposit.id}: the deposit is \\w+, not ACTION_REQUIRED`),
    );

    await h.control.requireDepositAction(deposit.id);
    await eventually(
      () => rampflow.getDeposit(deposit.id),
      (s) => s.stage === 'ACTION_REQUIRED',
    );
    const listed = await eventually(
      () => rampflow.listDeposits({ externalId }),
      (list) => list[0]?.stage === 'ACTION_REQUIRED',
    );
    expect(listed).toEqual([expect.objectContaining({ depositId: deposit.id, externalId, status: 'RUNNING' })]);

    await expect(rampflow.submitAttachment(deposit.id, { ...attachment, content: new Uint8Array() })).rejects.toThrow(
      /^attachment\.content: is empty/,
    );
    expect(await rampflow.submitAttachment(deposit.id, attachment)).toEqual({ submitted: true });
    expect((await rampflow.getDeposit(deposit.id)).waitingFor).toMatch(/review the attachment/);
    await handle.terminate('test over');
    await rampflow.depositHandle(deposit.id).terminate('test over');
  });

  it('getDeposit of an unknown deposit says it is not found', async () => {
    await expect(rampflow.getDeposit('no-such-deposit')).rejects.toThrow('deposit no-such-deposit not found');
  });
});
