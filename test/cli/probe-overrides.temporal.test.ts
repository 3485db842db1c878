/**
 * The probe's printed override, given to a worker as RAMP_ASSUMPTIONS_FILE, carries the demo journey
 * (an AUD onramp and a USDT offramp to ACTIVE, then one deposit to COMPLETED) through a sandbox that
 * differs from what rampflow assumes, for each variant the sandbox has. The override is the one the
 * probe prints for that variant.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAssumptionsFile } from '../../ramp/assumptions-file';
import { runProbe } from '../../ramp/probe';
import { createSandbox, variantOptions } from '../../sandbox';
import { shownDeposit } from '../../workflows/journey/board';
import {
  registerTestExits,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  TEST_OFFRAMP,
  TEST_ONRAMP,
} from '../support/journey-harness';
import { TEST_PARTNER } from '../support/sandbox';

const folder = mkdtempSync(join(tmpdir(), 'rampflow-probe-override-'));

/** The RAMP_ASSUMPTIONS_FILE the probe prints for a sandbox with these variants. */
async function probedFile(variants: string[]): Promise<string> {
  const sandbox = await createSandbox({ partners: [TEST_PARTNER], ...variantOptions(variants) });
  try {
    // --create: two test customers, so the list order shows on an otherwise empty sandbox.
    const report = await runProbe({ baseUrl: sandbox.url, ...TEST_PARTNER, create: true });
    expect(report.held).toBe(false);
    const file = join(folder, `${variants.join('_').replace(/[^a-z0-9]+/gi, '-')}.json`);
    writeFileSync(file, JSON.stringify(report.overrides));
    return file;
  } finally {
    await sandbox.close();
  }
}

describe.each([
  'query-parameters=snake_case',
  'max-page-size=37',
  'accepted-skew=10',
  'list-order=oldest-first',
  'legacy-create-va-path=/v2/create-va',
])("a worker given the probe's override for --variant %s", (variant) => {
  it('completes the demo journey', { timeout: 240_000 }, async () => {
    const h = await startJourneyHarness(variantOptions([variant]), {
      rampAssumptions: loadAssumptionsFile(await probedFile([variant])),
    });
    try {
      const handle = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP });
      let state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
      const customerId = state.customer.id!;
      await h.control.approveCustomer(customerId);
      await registerTestExits(h.control, customerId);
      state = await h.waitForJourney(
        handle,
        (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
      );
      const virtualAccountId = state.onramp!.virtualAccount!.id;
      await h.control.approveVirtualAccount(virtualAccountId);
      await h.control.approveDepositAddress(state.offramp!.depositAddress!.id);
      await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');

      const deposit = await h.control.simulateFiatDeposit({
        virtualAccountId,
        amount: '100.00',
        currency: 'AUD',
        sender: TEST_AUD_SOURCE,
      });
      await h.reconcile(); // no webhooks here: reconciliation, paging the service's lists, finds the deposit
      await h.waitForJourney(handle, (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'RECEIVED');
      await h.control.confirmDeposit(deposit.id);
      await h.control.settleTrade((await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined)).tradeId!);
      state = await h.waitForJourney(handle, (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'COMPLETED');
      expect(shownDeposit(state.deposits, deposit.id)).toMatchObject({ amount: '100.00', currency: 'AUD' });
    } finally {
      await h.close();
    }
  });
});
