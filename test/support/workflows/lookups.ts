/** Workflows that run one recovery lookup with the options the real workflows give it (test/activities/list-search.temporal.test.ts). */
import { proxyActivities } from '@temporalio/workflow';
import type { OnrampSetup, RampActivities } from '../../../activities';
import { changeOptions, listSearchOptions } from '../../../workflows/common/calls';

const act = proxyActivities<RampActivities>({ startToCloseTimeout: '1 minute' });

/** As the journey sets up its onramp (workflows/journey/workflow.ts). */
export async function lookUpOnramp(setup: OnrampSetup): Promise<{ flowId: string; virtualAccountId: string }> {
  return act.ensureOnramp.executeWithOptions(changeOptions('look up or create the onramp'), [setup]);
}

/** As a confirmed deposit looks for its trade (workflows/deposit/run.ts, awaitTrade). */
export async function lookUpTrade(lookup: { depositId: string; customerId: string }): Promise<string | null> {
  return (
    (await act.findTradeForDeposit.executeWithOptions(listSearchOptions("look for the deposit's trade"), [lookup]))
      ?.id ?? null
  );
}
