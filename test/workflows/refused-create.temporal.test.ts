/**
 * A create the service keeps refusing (FAILED) parks its journey with the service's words once the
 * refusal has lasted longer than the worker's bound (`refusedCreateParkAfterMs`; an hour in
 * production, seconds here), instead of retrying every few minutes for ever; an operator's `retry`
 * resumes it, and it creates the record once. A real worker on the shared dev server, the sandbox
 * over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryUpdate } from '../../workflows/common/messages';
import { registerTestExits, startJourneyHarness, TEST_ONRAMP, type JourneyHarness } from '../support/journey-harness';

const REFUSED_AFTER_MS = 3_000;

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness({}, { refusedCreateParkAfterMs: REFUSED_AFTER_MS });
});
afterAll(async () => {
  await h?.close();
});

describe('a create the service keeps refusing', () => {
  it('parks with the service words after the bound, and an operator retry creates it once', async () => {
    const handle = await h.startJourney({ onramp: TEST_ONRAMP });
    const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    const customerId = kyc.customer.id!;
    await registerTestExits(h.control, customerId);
    await h.control.injectFault({ path: '/autoramp-flow/onramp', kind: 'REFUSED', count: 1_000 });
    const refusingSince = Date.now();
    await h.control.approveCustomer(customerId);

    const parked = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(Date.now() - refusingSince).toBeGreaterThanOrEqual(REFUSED_AFTER_MS);
    expect(parked.attention).toMatchObject({ stage: 'SETTING_UP_RAMPS', errorType: 'Refused' });
    expect(parked.attention!.reason).toBe(
      'creating the onramp: POST /autoramp-flow/onramp (HTTP 422): the operation failed: FAILED: the operation was refused (injected fault)',
    );
    // Refused more than once (retried until the bound), and it has stopped asking.
    const [rule] = await h.control.pendingFaults();
    expect(1_000 - rule!.remaining).toBeGreaterThan(1);
    await new Promise((wake) => setTimeout(wake, 2_000));
    expect((await h.control.pendingFaults())[0]!.remaining).toBe(rule!.remaining);

    await h.control.injectFault({ path: '/autoramp-flow/onramp', kind: 'REFUSED', count: 0 });
    await handle.executeUpdate(retryUpdate, { args: [{}] });
    const resumed = await h.waitForJourney(
      handle,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount,
    );
    expect(resumed.attention).toBeUndefined();
    const flows = [];
    for await (const flow of h.ramp.autorampFlows.iterate({ type: 'ONRAMP', pageSize: 100 }))
      if (flow.to === resumed.onramp!.cryptoAddressId) flows.push(flow.id);
    expect(flows).toEqual([resumed.onramp!.flowId]);
  });
});
