/** A workflow that runs the payout's create with the options the payout gives it (test/activities/payout-lookup.temporal.test.ts). */
import { proxyActivities } from '@temporalio/workflow';
import type { PayoutActivities, PayoutOrder } from '../../../activities';
import type { PaymentRecord } from '../../../workflows/common/records';
import { changeOptions } from '../../../workflows/common/calls';

const act = proxyActivities<PayoutActivities>({ startToCloseTimeout: '1 minute' });

/** As the payout creates its payment (workflows/payout/workflow.ts): looked up by reference first. */
export async function ensurePayout(order: PayoutOrder): Promise<PaymentRecord> {
  return act.ensurePayoutPayment.executeWithOptions(changeOptions('pay out from the partner balance'), [order]);
}
