/** Deposit lifecycles that leave the happy path, on the real dev server against the sandbox. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownDeposit } from '../../workflows/journey/board';
import {
  cancelUpdate,
  depositStateQuery,
  depositWorkflowId,
  type JourneyState,
  submitAttachmentUpdate,
} from '../../workflows/common/messages';
import type { depositLifecycle } from '../../workflows/deposit/workflow';
import { attachmentStoreFromEnv, checkIn } from '../../attachments';
import {
  type JourneyHarness,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
} from '../support/journey-harness';

let h: JourneyHarness;
/** A worker whose deposit steps park after two seconds without an answer. */
let impatient: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
  impatient = await startJourneyHarness({}, { depositTimings: { pollIntervalSeconds: 1, stepDeadlineSeconds: 2 } });
});
afterAll(async () => {
  await h?.close();
  await impatient?.close();
});

const stageOf = (state: JourneyState, depositId: string) => shownDeposit(state.deposits, depositId)?.stage;
const DOCUMENT = {
  fileName: 'proof-of-funds.pdf',
  contentType: 'application/pdf',
  content: Buffer.from('%PDF-1.4 test'),
};

describe('the deposit lifecycle', () => {
  it("waits in ACTION_REQUIRED for an operator's attachment, then carries on to completion", async () => {
    const { handle, virtualAccountId } = await startActiveJourney(h);
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '250.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    // The claim check: the bytes go to the attachment store, only their reference to the workflow.
    const ATTACHMENT = await checkIn(attachmentStoreFromEnv(), DOCUMENT);
    const depositHandle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id));
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) === 'RECEIVED');

    // An attachment nobody asked for is refused: the deposit reads itself first (ACTION_REQUIRED comes
    // with no event), and the service still says RECEIVED.
    const refused = await depositHandle
      .executeUpdate(submitAttachmentUpdate, { args: [ATTACHMENT] })
      .catch((error: unknown) => error);
    expect((refused as Error).cause).toMatchObject({ message: expect.stringMatching(/not ACTION_REQUIRED/) });

    await h.control.requireDepositAction(deposit.id);
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) === 'ACTION_REQUIRED');
    expect((await depositHandle.query(depositStateQuery)).waitingFor).toMatch(/submit the attachment/);

    // The document's bytes themselves are refused: they would be written into the history.
    const inline = {
      fileName: DOCUMENT.fileName,
      contentType: DOCUMENT.contentType,
      contentBase64: DOCUMENT.content.toString('base64'),
    };
    const bytesRefused = await depositHandle
      .executeUpdate('submitAttachment', { args: [inline] })
      .catch((error: unknown) => error);
    expect((bytesRefused as Error).cause).toMatchObject({
      message: expect.stringMatching(/expected an attachment reference/),
    });
    const extraField = await depositHandle
      .executeUpdate(submitAttachmentUpdate, { args: [{ ...ATTACHMENT, contentBase64: 'x' } as typeof ATTACHMENT] })
      .catch((error: unknown) => error);
    expect((extraField as Error).cause).toMatchObject({
      message: expect.stringMatching(/expected an attachment reference/),
    });

    await depositHandle.executeUpdate(submitAttachmentUpdate, { args: [ATTACHMENT] });
    expect((await depositHandle.query(depositStateQuery)).waitingFor).toMatch(/review the attachment/);
    // One attachment per deposit: a second, different file is refused; the same file again (a client
    // retrying after a lost answer) gets the first submission's answer, and the service gets it once.
    const other = await checkIn(attachmentStoreFromEnv(), {
      ...DOCUMENT,
      fileName: 'other.pdf',
      content: Buffer.from('%PDF-1.4 another'),
    });
    const second = await depositHandle
      .executeUpdate(submitAttachmentUpdate, { args: [other] })
      .catch((error: unknown) => error);
    expect((second as Error).cause).toMatchObject({ message: expect.stringMatching(/already submitted/) });
    expect(await depositHandle.executeUpdate(submitAttachmentUpdate, { args: [ATTACHMENT] })).toEqual({
      submitted: true,
    });
    const submissions = ((await depositHandle.fetchHistory()).events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'submitDepositAttachment',
    );
    expect(submissions).toHaveLength(1);
    await h.control.confirmDeposit(deposit.id);
    const traded = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined);
    await h.control.settleTrade(traded.tradeId!);
    expect(await depositHandle.result()).toMatchObject({ stage: 'COMPLETED' });
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) === 'COMPLETED');
    await handle.terminate('test over');
  });

  it('ends REJECTED when the service sends the money back', async () => {
    const { handle, virtualAccountId } = await startActiveJourney(h);
    // Only whitelisted senders may pay into an AUD account: the service rejects this one at once.
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '10.00',
      currency: 'AUD',
      sender: { bsbNumber: '999999', accountNumber: '00000000', accountName: 'Stranger' },
    });
    await h.reconcile();
    const depositHandle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id));
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) !== undefined);
    expect(await depositHandle.result()).toEqual({
      stage: 'REJECTED',
      reason: 'the service rejected or refunded the deposit',
    });
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) === 'REJECTED');
    await handle.terminate('test over');
  });

  it('parks a deposit the service never confirms, and an operator can cancel it', async () => {
    const h = impatient;
    const { handle, depositAddressId } = await startActiveJourney(h);
    const deposit = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '5.00',
      currency: 'USDT',
      sender: { address: '0x0000000000000000000000000000000000000002', network: 'ETH' },
    });
    await h.reconcile();
    const depositHandle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id));
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) === 'NEEDS_ATTENTION');
    const parked = await depositHandle.query(depositStateQuery);
    expect(parked.attention).toMatchObject({ stage: 'RECEIVED', errorType: 'Deadline' });

    await depositHandle.executeUpdate(cancelUpdate, { args: [{ reason: 'refunded by hand' }] });
    expect(await depositHandle.result()).toEqual({ stage: 'CANCELLED', reason: 'refunded by hand' });
    await h.waitForJourney(handle, (s) => stageOf(s, deposit.id) === 'CANCELLED');
    await handle.terminate('test over');
  });
});
