/**
 * Turning encryption on does not strand journeys that started before it: a worker with the codec
 * replays their plain histories (the codec passes plain payloads through on decode) and carries them
 * on, sealing only what it writes from then on.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ENCRYPTED_ENCODING } from '../../codec';
import { createRampflowWorker } from '../../workers/worker';
import type { customerJourney } from '../../workflows';
import { journeyStateQuery, journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema } from '../../workflows/schemas';
import {
  FAST_TIMINGS,
  type JourneyHarness,
  registerTestExits,
  startJourneyHarness,
  TEST_OFFRAMP,
  TEST_ONRAMP,
} from '../support/journey-harness';
import { readableText } from '../support/raw-history';
import { connectWorker, temporalAddress } from '../support/temporal';

let h: JourneyHarness;
let plainConnection: Connection;
let plainClient: Client;

beforeAll(async () => {
  h = await startJourneyHarness();
  plainConnection = await Connection.connect({ address: temporalAddress() });
  plainClient = new Client({ connection: plainConnection });
});
afterAll(async () => {
  await plainConnection?.close();
  await h?.close();
});

describe('histories from before encryption', () => {
  it('are carried on by a worker with the codec', async () => {
    // Before: a worker and a client without the codec, as rampflow ran before payload encryption.
    await h.stopWorker();
    const workerConnection = await connectWorker();
    const plainWorker = await createRampflowWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue: h.taskQueue,
      ramp: h.ramp,
      dataConverter: {},
      workflowBundle: { codePath: inject('workflowBundlePath') },
      shutdownGraceTime: '2 seconds',
    });
    const plainRun = plainWorker.run();
    const externalId = `before-encryption-${randomUUID()}`;
    const handle = await plainClient.workflow.start<typeof customerJourney>('customerJourney', {
      taskQueue: h.taskQueue,
      workflowId: journeyWorkflowId(externalId),
      args: [
        JourneyInputSchema.parse({
          customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
          onramp: TEST_ONRAMP,
          offramp: TEST_OFFRAMP,
          timings: FAST_TIMINGS,
        }),
      ],
    });
    const before = await h.waitForJourney(
      h.client.workflow.getHandle(handle.workflowId),
      (s) => s.stage === 'AWAITING_KYC',
    );
    plainWorker.shutdown();
    await plainRun;
    await workerConnection.close();
    const plainHistory = readableText(await handle.fetchHistory());
    expect(plainHistory).toContain('ada@example.com');
    expect(plainHistory).not.toContain(ENCRYPTED_ENCODING);

    // After: the worker with the codec replays that history from the start and moves the journey on.
    await h.startWorker();
    const journey = h.client.workflow.getHandle<typeof customerJourney>(handle.workflowId);
    await registerTestExits(h.control, before.customer.id!);
    await h.control.approveCustomer(before.customer.id!);
    const accounts = await h.waitForJourney(
      journey,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
    );
    await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
    await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
    const active = await h.waitForJourney(journey, (s) => s.stage === 'ACTIVE');
    expect(active.customer).toMatchObject({ id: before.customer.id, status: 'APPROVED' });
    expect((await journey.query(journeyStateQuery)).externalId).toBe(externalId);
    // What it wrote since is sealed.
    expect(readableText(await handle.fetchHistory())).toContain(ENCRYPTED_ENCODING);
    await journey.terminate('test over');
  });
});
